//! A reader for the few Python 2 pickles the Planetoid datasets ship (`ind.<name>.{x,tx,allx,y,
//! ty,ally,graph}`): numpy arrays, `scipy.sparse.csr_matrix` and a `collections.defaultdict`
//! of lists.
//!
//! A pickle is a program for a stack machine whose `GLOBAL` + `REDUCE` opcodes call arbitrary
//! Python callables. This reader runs none: it accepts only the opcodes those files use, only
//! the five globals they name (`numpy.core.multiarray._reconstruct`, `numpy.ndarray`,
//! `numpy.dtype`, `scipy.sparse.csr.csr_matrix`, `collections.defaultdict`, and `list` as
//! its factory), and records calls as inert [`Value::Object`]s that the caller interprets.
//! Every length is checked against the bytes left, values are shared (never copied) by the
//! memo, and nesting is bounded, so a hostile file is a typed error, never an allocation its
//! size does not pay for or a stack overflow.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::error::{GraphError, Result};

/// The deepest nesting of containers accepted (the Planetoid files need 5).
pub const MAX_DEPTH: usize = 32;

/// The globals a Planetoid pickle may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `numpy.core.multiarray._reconstruct`: makes an empty array; `BUILD` fills it.
    Reconstruct,
    /// `numpy.ndarray`: the type argument of `_reconstruct`.
    Ndarray,
    /// `numpy.dtype`.
    Dtype,
    /// `scipy.sparse.csr.csr_matrix`.
    CsrMatrix,
    /// `collections.defaultdict`.
    DefaultDict,
    /// `__builtin__.list` (the default factory).
    List,
}

impl Class {
    fn of(module: &str, name: &str) -> Option<Self> {
        Some(match (module, name) {
            ("numpy.core.multiarray", "_reconstruct") => Self::Reconstruct,
            ("numpy", "ndarray") => Self::Ndarray,
            ("numpy", "dtype") => Self::Dtype,
            ("scipy.sparse.csr", "csr_matrix") => Self::CsrMatrix,
            ("collections", "defaultdict") => Self::DefaultDict,
            ("__builtin__" | "builtins", "list") => Self::List,
            _ => return None,
        })
    }
}

/// A shared, mutable pickle value (the memo and the stack share objects, as Python does).
pub type Shared = Rc<RefCell<Value>>;

/// A value the reader built.
#[derive(Debug)]
pub enum Value {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A Python 2 `str` (bytes).
    Bytes(Vec<u8>),
    /// A tuple.
    Tuple(Vec<Shared>),
    /// A list.
    List(Vec<Shared>),
    /// A dict, items in insertion order.
    Dict(Vec<(Shared, Shared)>),
    /// A global named by `GLOBAL`.
    Global(Class),
    /// A recorded call `class(*args)`, its `BUILD` state and the items `SETITEMS` gave it.
    Object {
        /// The callable.
        class: Class,
        /// The arguments.
        args: Vec<Shared>,
        /// The state `BUILD` set.
        state: Option<Shared>,
        /// Items set on it (a `defaultdict`).
        items: Vec<(Shared, Shared)>,
    },
}

fn shared(v: Value) -> Shared {
    Rc::new(RefCell::new(v))
}

/// Nesting depth of `v`'s direct children plus one (children's depths are bounded when built).
fn depth_of(children: &[Shared], depths: &HashMap<*const RefCell<Value>, usize>) -> usize {
    1 + children
        .iter()
        .map(|c| depths.get(&Rc::as_ptr(c)).copied().unwrap_or(0))
        .max()
        .unwrap_or(0)
}

struct Reader<'a> {
    name: &'a str,
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, message: impl Into<String>) -> GraphError {
        GraphError::Format {
            path: self.name.into(),
            message: format!("pickle byte {}: {}", self.pos, message.into()),
        }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.buf.len() - self.pos {
            return Err(self.err(format!(
                "needs {n} bytes, {} left (truncated?)",
                self.buf.len() - self.pos
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    /// A memo key: one byte (`BINPUT`, `BINGET`) or four (`LONG_*`).
    fn memo_key(&mut self, short: bool) -> Result<u32> {
        if short {
            Ok(u32::from(self.u8()?))
        } else {
            self.u32()
        }
    }
    fn line(&mut self) -> Result<&'a str> {
        let rest = &self.buf[self.pos..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| self.err("unterminated line"))?;
        let s = std::str::from_utf8(&rest[..end]).map_err(|_| self.err("a name is not UTF-8"))?;
        self.pos += end + 1;
        Ok(s)
    }
}

/// Reads one pickle `bytes` (named `name` in errors) with the restricted machine.
///
/// # Errors
/// [`GraphError::Format`] naming the byte offset: an opcode or global outside the Planetoid
/// subset, a length beyond the end, a memo key never stored, a stack underflow, nesting deeper
/// than [`MAX_DEPTH`], or bytes after `STOP`.
///
/// # Example
/// ```
/// use graph_core::loaders::pickle::{read, Value};
/// // pickle.dumps((1, "a"), protocol=2)
/// let v = read("t", b"\x80\x02K\x01U\x01a\x86q\x00.")?;
/// assert!(matches!(&*v.borrow(), Value::Tuple(t) if t.len() == 2));
/// // pickle.dumps(os.system) names a global outside the subset: refused, nothing runs.
/// assert!(read("evil", b"cposix\nsystem\nq\x00.").is_err());
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn read(name: &str, bytes: &[u8]) -> Result<Shared> {
    let mut r = Reader {
        name,
        buf: bytes,
        pos: 0,
    };
    let mut stack: Vec<Shared> = Vec::new();
    let mut marks: Vec<usize> = Vec::new();
    let mut memo: HashMap<u32, Shared> = HashMap::new();
    let mut depths: HashMap<*const RefCell<Value>, usize> = HashMap::new();
    let mut keep: Vec<Shared> = Vec::new();
    macro_rules! pop {
        () => {
            stack.pop().ok_or_else(|| r.err("stack underflow"))?
        };
    }
    macro_rules! push_container {
        ($children:expr, $make:expr) => {{
            let d = depth_of(&$children, &depths);
            if d > MAX_DEPTH {
                return Err(r.err(format!("nesting deeper than {MAX_DEPTH}")));
            }
            let v = shared(($make)($children));
            depths.insert(Rc::as_ptr(&v), d);
            // Kept alive to the end, so that no later value reuses its address in `depths`.
            keep.push(Rc::clone(&v));
            stack.push(v);
        }};
    }
    loop {
        let op = r.u8()?;
        match op {
            0x80 => {
                // PROTO
                let p = r.u8()?;
                if p > 2 {
                    return Err(r.err(format!("pickle protocol {p} (only 0–2 are read)")));
                }
            }
            b'.' => {
                // STOP
                let v = pop!();
                if r.pos != bytes.len() {
                    return Err(r.err("bytes after STOP"));
                }
                return Ok(v);
            }
            b'c' => {
                let module = r.line()?;
                let nm = r.line()?;
                let class = Class::of(module, nm)
                    .ok_or_else(|| r.err(format!("global {module}.{nm} is not allowed")))?;
                stack.push(shared(Value::Global(class)));
            }
            b'N' => stack.push(shared(Value::None)),
            0x88 => stack.push(shared(Value::Bool(true))),
            0x89 => stack.push(shared(Value::Bool(false))),
            b'K' => stack.push(shared(Value::Int(i64::from(r.u8()?)))),
            b'M' => stack.push(shared(Value::Int(i64::from(r.u16()?)))),
            b'J' => stack.push(shared(Value::Int(i64::from(r.u32()? as i32)))),
            b'U' => {
                let n = usize::from(r.u8()?);
                stack.push(shared(Value::Bytes(r.take(n)?.to_vec())));
            }
            b'T' => {
                let n = r.u32()? as usize;
                stack.push(shared(Value::Bytes(r.take(n)?.to_vec())));
            }
            b'q' | b'r' => {
                let key = r.memo_key(op == b'q')?;
                let top = stack
                    .last()
                    .ok_or_else(|| r.err("memo put on an empty stack"))?;
                memo.insert(key, Rc::clone(top));
            }
            b'h' | b'j' => {
                let key = r.memo_key(op == b'h')?;
                let v = memo
                    .get(&key)
                    .ok_or_else(|| r.err(format!("memo key {key} was never stored")))?;
                stack.push(Rc::clone(v));
            }
            b'(' => marks.push(stack.len()),
            b')' => push_container!(Vec::new(), Value::Tuple),
            b']' => push_container!(Vec::new(), Value::List),
            b'}' => stack.push(shared(Value::Dict(Vec::new()))),
            0x85..=0x87 => {
                let n = usize::from(op - 0x84);
                if stack.len() < n {
                    return Err(r.err("stack underflow"));
                }
                let items = stack.split_off(stack.len() - n);
                push_container!(items, Value::Tuple);
            }
            b't' => {
                let m = marks.pop().ok_or_else(|| r.err("TUPLE without MARK"))?;
                let items = stack.split_off(m.min(stack.len()));
                push_container!(items, Value::Tuple);
            }
            b'a' | b'e' | b'u' => {
                // APPEND, APPENDS, SETITEMS
                let items = if op == b'a' {
                    vec![pop!()]
                } else {
                    let m = marks.pop().ok_or_else(|| r.err("no MARK"))?;
                    stack.split_off(m.min(stack.len()))
                };
                let target = stack.last().ok_or_else(|| r.err("stack underflow"))?;
                let child_depth = depth_of(&items, &depths);
                let own = depths.get(&Rc::as_ptr(target)).copied().unwrap_or(1);
                if child_depth.max(own) > MAX_DEPTH {
                    return Err(r.err(format!("nesting deeper than {MAX_DEPTH}")));
                }
                depths.insert(Rc::as_ptr(target), child_depth.max(own));
                let mut t = target
                    .try_borrow_mut()
                    .map_err(|_| r.err("a value contains itself"))?;
                match (&mut *t, op) {
                    (Value::List(l), b'a' | b'e') => l.extend(items),
                    (Value::Dict(d) | Value::Object { items: d, .. }, b'u') => {
                        if items.len() % 2 != 0 {
                            return Err(r.err("SETITEMS with an odd number of values"));
                        }
                        let mut it = items.into_iter();
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            d.push((k, v));
                        }
                    }
                    _ => return Err(r.err("APPEND/SETITEMS on a value of the wrong kind")),
                }
            }
            b'R' | 0x81 => {
                // REDUCE, NEWOBJ: record the call, run nothing.
                let args = pop!();
                let callable = pop!();
                let class = match &*callable.borrow() {
                    Value::Global(c) => *c,
                    _ => return Err(r.err("call of a value that is not an allowed global")),
                };
                let args = match &*args.borrow() {
                    Value::Tuple(t) => t.clone(),
                    _ => return Err(r.err("call arguments are not a tuple")),
                };
                push_container!(args, |args| Value::Object {
                    class,
                    args,
                    state: None,
                    items: Vec::new(),
                });
            }
            b'b' => {
                let state = pop!();
                let target = stack
                    .last()
                    .ok_or_else(|| r.err("BUILD on an empty stack"))?;
                let d = depth_of(std::slice::from_ref(&state), &depths);
                if d > MAX_DEPTH {
                    return Err(r.err(format!("nesting deeper than {MAX_DEPTH}")));
                }
                depths.insert(Rc::as_ptr(target), d);
                let mut t = target
                    .try_borrow_mut()
                    .map_err(|_| r.err("a value contains itself"))?;
                match &mut *t {
                    Value::Object { state: s, .. } if s.is_none() => *s = Some(state),
                    _ => return Err(r.err("BUILD on a value that is not a fresh object")),
                }
            }
            other => return Err(r.err(format!("opcode 0x{other:02x} is not read"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_pickles_are_errors() {
        for (bytes, what) in [
            (&b"\x80\x02cos\nsystem\n."[..], "not allowed"),
            (b"\x80\x02T\xff\xff\xff\x7f.", "needs 2147483647 bytes"),
            (b"\x80\x02K\x01", "truncated"),
            (b"\x80\x02h\x05.", "never stored"),
            (b"\x80\x02.", "underflow"),
            (b"\x80\x02K\x01.x", "after STOP"),
            (b"\x80\x04K\x01.", "protocol 4"),
            (b"\x80\x02K\x01K\x02R.", "not an allowed global"),
            (b"\x80\x02\x95.", "opcode"),
        ] {
            let e = read("p", bytes).unwrap_err().to_string();
            assert!(e.contains(what), "{e}");
        }
        // Deep nesting: 100 one-element tuples inside each other.
        let mut deep = b"\x80\x02N".to_vec();
        deep.extend(std::iter::repeat_n(0x85, 100));
        deep.push(b'.');
        assert!(
            read("p", &deep)
                .unwrap_err()
                .to_string()
                .contains("nesting")
        );
        // A memo shares the value: BUILD through one name is seen through the other.
        let ok = read(
            "p",
            b"\x80\x02cnumpy\ndtype\nU\x02i4K\x00K\x01\x87Rq\x01)bh\x01\x86.",
        )
        .unwrap();
        let Value::Tuple(t) = &*ok.borrow() else {
            panic!()
        };
        assert!(Rc::ptr_eq(&t[0], &t[1]));
        assert!(matches!(
            &*t[1].borrow(),
            Value::Object { state: Some(_), .. }
        ));
    }
}
