//! Typed table rows: a `#[derive(Serialize)]` struct (from the paper crates' `paper` modules) is
//! flattened into its field names and JSON values, in declaration order, so a [`Table`] built
//! from rows gets its columns from the struct and a row can never have the wrong length.
//!
//! `serde_json::to_value` would lose the field order (its map is sorted); this serializer keeps
//! it. A row is a struct (or a map with string keys, which is how serde writes a struct with a
//! `#[serde(flatten)]` field: the flattened struct's fields become columns in place); anything
//! else is an error naming it.
//!
//! [`Table`]: crate::output::Table

use serde::Serialize;
use serde::ser::{self, Impossible};
use serde_json::Value;

/// Why a value could not be flattened into a row.
#[derive(Debug)]
pub(crate) struct RowError(String);

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RowError {}

impl ser::Error for RowError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Self(msg.to_string())
    }
}

/// The fields of `row` (a struct) as `(name, value)` pairs in declaration order. Each value is
/// what `serde_json::to_value` gives (non-finite floats become `null`; `#[serde(rename)]`
/// names the column).
///
/// # Errors
/// When `row` is not a struct, or a field cannot be represented as JSON.
pub(crate) fn fields<T: Serialize>(row: &T) -> Result<Vec<(String, Value)>, RowError> {
    row.serialize(RowSerializer)
}

/// The column names of row type `T`, from its default value.
///
/// # Errors
/// As [`fields`].
pub(crate) fn columns<T: Serialize + Default>() -> Result<Vec<String>, RowError> {
    Ok(fields(&T::default())?.into_iter().map(|(k, _)| k).collect())
}

struct RowSerializer;

/// Collects the fields of one struct (or the entries of one map), and a map's pending key.
struct Fields(Vec<(String, Value)>, Option<String>);

impl Fields {
    fn push<V: ?Sized + Serialize>(&mut self, key: String, value: &V) -> Result<(), RowError> {
        let v = serde_json::to_value(value).map_err(|e| RowError(format!("field `{key}`: {e}")))?;
        self.0.push((key, v));
        Ok(())
    }
}

impl ser::SerializeStruct for Fields {
    type Ok = Out;
    type Error = RowError;

    fn serialize_field<V: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), RowError> {
        self.push(key.to_owned(), value)
    }

    fn end(self) -> Result<Out, RowError> {
        Ok(self.0)
    }
}

impl ser::SerializeMap for Fields {
    type Ok = Out;
    type Error = RowError;

    fn serialize_key<K: ?Sized + Serialize>(&mut self, key: &K) -> Result<(), RowError> {
        match serde_json::to_value(key) {
            Ok(Value::String(k)) => {
                self.1 = Some(k);
                Ok(())
            }
            _ => Err(RowError("a table row's keys must be strings".into())),
        }
    }

    fn serialize_value<V: ?Sized + Serialize>(&mut self, value: &V) -> Result<(), RowError> {
        let key = self
            .1
            .take()
            .ok_or_else(|| RowError("a map value without its key".into()))?;
        self.push(key, value)
    }

    fn end(self) -> Result<Out, RowError> {
        Ok(self.0)
    }
}

fn not_a_struct<T>(what: &str) -> Result<T, RowError> {
    Err(RowError(format!(
        "a table row must be a struct with named fields, got {what}"
    )))
}

/// Every `serialize_*` other than `serialize_struct` refuses: a row is a struct.
macro_rules! refuse {
    ($($name:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $name(self, $(_: $arg),*) -> Result<Self::Ok, RowError> {
            not_a_struct(stringify!($name))
        })*
    };
}

type Out = Vec<(String, Value)>;

impl ser::Serializer for RowSerializer {
    type Ok = Out;
    type Error = RowError;
    type SerializeSeq = Impossible<Out, RowError>;
    type SerializeTuple = Impossible<Out, RowError>;
    type SerializeTupleStruct = Impossible<Out, RowError>;
    type SerializeTupleVariant = Impossible<Out, RowError>;
    type SerializeMap = Fields;
    type SerializeStruct = Fields;
    type SerializeStructVariant = Impossible<Out, RowError>;

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Out, RowError> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Out, RowError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Out, RowError> {
        not_a_struct("an enum variant")
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, RowError> {
        not_a_struct("a sequence")
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, RowError> {
        not_a_struct("a tuple")
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, RowError> {
        not_a_struct("a tuple struct")
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, RowError> {
        not_a_struct("an enum variant")
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, RowError> {
        Ok(Fields(Vec::with_capacity(len.unwrap_or(0)), None))
    }

    fn serialize_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, RowError> {
        Ok(Fields(Vec::with_capacity(len), None))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, RowError> {
        not_a_struct("an enum variant")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Serialize, Default)]
    struct R {
        name: String,
        #[serde(rename = "ε")]
        eps: f64,
        n: usize,
        missing: Option<f64>,
    }

    #[test]
    fn fields_keep_declaration_order_and_renames() {
        let r = R {
            name: "a".into(),
            eps: f64::NAN,
            n: 3,
            missing: Some(0.5),
        };
        let f = fields(&r).unwrap();
        let names: Vec<_> = f.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["name", "ε", "n", "missing"]);
        assert_eq!(f[0].1, json!("a"));
        assert_eq!(f[1].1, Value::Null, "NaN becomes an empty cell");
        assert_eq!(f[2].1, json!(3));
        assert_eq!(f[3].1, json!(0.5));
        assert_eq!(columns::<R>().unwrap(), names);
    }

    #[derive(Serialize, Default)]
    struct Inner {
        a: f64,
        b: Vec<f64>,
    }

    #[derive(Serialize, Default)]
    struct Outer {
        name: String,
        #[serde(flatten)]
        inner: Inner,
        n: usize,
    }

    #[test]
    fn flattened_fields_become_columns_in_place() {
        let r = Outer {
            name: "x".into(),
            inner: Inner {
                a: 0.5,
                b: vec![1.0, 2.0],
            },
            n: 4,
        };
        let f = fields(&r).unwrap();
        let names: Vec<_> = f.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["name", "a", "b", "n"]);
        assert_eq!(f[2].1, json!([1.0, 2.0]));
        assert_eq!(columns::<Outer>().unwrap(), names);
    }

    #[test]
    fn non_struct_rows_are_errors() {
        let e = fields(&vec![1, 2]).unwrap_err();
        assert!(e.to_string().contains("sequence"), "{e}");
        let e = fields(&std::collections::BTreeMap::from([(1, 2)])).unwrap_err();
        assert!(e.to_string().contains("keys must be strings"), "{e}");
        let e = fields(&1.5).unwrap_err();
        assert!(e.to_string().contains("serialize_f64"), "{e}");
    }
}

#[cfg(test)]
mod paper_rows {
    /// cefedgnn's attack rows flatten the attack's report in place: the committed tables'
    /// column order.
    #[test]
    fn attack_rows_keep_their_columns() {
        let cols = super::columns::<cefedgnn::paper::AttackRow>().unwrap();
        assert_eq!(
            cols,
            [
                "setting",
                "sigma0",
                "client",
                "own_nodes",
                "targets",
                "mse_regression",
                "ridge",
                "mse_nearest",
                "mse_mean",
                "regression_vs_mean",
                "label_accuracy",
                "label_balanced_accuracy",
                "label_prior_accuracy",
                "label_prior_balanced_accuracy",
                "edge_auc",
                "edge_linked_pairs",
                "f1_mean"
            ]
        );
    }
}
