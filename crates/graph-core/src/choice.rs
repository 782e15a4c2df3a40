//! Named choices: one list of spellings per user-facing enum, shared by every front end.
//!
//! A [`Choice`] is an enum whose values a user names in a command line, a Python keyword or a
//! configuration file. [`choice_enum!`](crate::choice_enum) declares one list per enum (each
//! value's name, older spellings still accepted, a one-line help) and derives from it `FromStr`,
//! `Display`, serde and [`Choice::ALL`], so the CLI (clap's possible values), the Python module
//! and `cargo xtask` accept and print exactly the same names.
//!
//! ```
//! use graph_core::choice::Choice;
//!
//! graph_core::choice_enum! {
//!     /// How to go.
//!     pub enum Pace: "pace" {
//!         /// Slowly.
//!         Slow => "slow" | "gentle",
//!         /// Quickly.
//!         Fast => "fast",
//!     }
//! }
//! assert_eq!("gentle".parse::<Pace>().unwrap(), Pace::Slow);
//! assert_eq!(Pace::Fast.to_string(), "fast");
//! assert_eq!(Pace::names(), ["slow", "fast"]);
//! let e = "brisk".parse::<Pace>().unwrap_err();
//! assert_eq!(e.to_string(), "unknown pace `brisk` (expected one of: slow, fast)");
//! assert_eq!(serde_json::to_string(&Pace::Slow).unwrap(), "\"slow\"");
//! assert_eq!(serde_json::from_str::<Pace>("\"Fast\"").unwrap(), Pace::Fast); // variant name
//! ```

/// A name that is not one of a [`Choice`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{got}` (expected one of: {expected})")]
pub struct UnknownChoice {
    /// What was being chosen ([`Choice::WHAT`]).
    pub what: &'static str,
    /// The name given.
    pub got: String,
    /// The accepted names, comma-separated.
    pub expected: String,
}

/// An enum of named values (see the [module docs](self)).
pub trait Choice: Copy + Eq + std::fmt::Debug + 'static {
    /// What is chosen, for messages and listings (`"sensitivity bound"`).
    const WHAT: &'static str;
    /// Every value, in declaration order.
    const ALL: &'static [Self];

    /// The name of `self`: what the front ends accept and print.
    fn name(self) -> &'static str;

    /// Older spellings still accepted for `self` (never printed).
    fn aliases(self) -> &'static [&'static str];

    /// One line of help for `self` (its doc comment).
    fn help(self) -> &'static str;

    /// The names of [`Self::ALL`], in order.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|c| c.name()).collect()
    }

    /// The value named `s` (a name or an alias; exact spelling).
    ///
    /// # Errors
    /// [`UnknownChoice`] listing the names.
    fn from_name(s: &str) -> Result<Self, UnknownChoice> {
        Self::ALL
            .iter()
            .copied()
            .find(|c| c.name() == s || c.aliases().contains(&s))
            .ok_or_else(|| UnknownChoice {
                what: Self::WHAT,
                got: s.to_owned(),
                expected: Self::names().join(", "),
            })
    }
}

#[doc(hidden)]
pub use serde as __serde;

/// Declares an enum and its [`Choice`] list: `Variant => "name" | "alias" …` per value, each
/// with a doc comment (its help line); `enum Name: "what" default Variant { … }` also implements
/// `Default`. Derives `Clone, Copy, Debug, PartialEq, Eq, Hash`, adds the inherent `ALL` and
/// `name` (usable without importing the trait), and implements [`Choice`], `FromStr` (names and
/// aliases), `Display` (the name), and serde (writes the name; reads the name, an alias, or the
/// variant's identifier, the form older files used).
/// See the [module docs](self) for an example.
#[macro_export]
macro_rules! choice_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $what:literal $(default $dflt:ident)? {
            $(
                $(#[doc = $doc:literal])*
                $var:ident => $first:literal $(| $alias:literal)*
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $var,
            )+
        }

        $(
            impl ::std::default::Default for $name {
                fn default() -> Self {
                    Self::$dflt
                }
            }
        )?

        impl $name {
            /// Every value, in declaration order (the `Choice` list).
            $vis const ALL: &'static [Self] = &[$(Self::$var),+];

            /// The name of `self`: what the front ends accept and print.
            $vis fn name(self) -> &'static str {
                match self { $(Self::$var => $first),+ }
            }
        }

        impl $crate::choice::Choice for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [Self] = $name::ALL;
            fn name(self) -> &'static str {
                $name::name(self)
            }
            fn aliases(self) -> &'static [&'static str] {
                match self { $(Self::$var => &[$($alias),*]),+ }
            }
            fn help(self) -> &'static str {
                match self { $(Self::$var => concat!($($doc),*).trim_ascii()),+ }
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::choice::UnknownChoice;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                <Self as $crate::choice::Choice>::from_name(s)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::choice::Choice::name(*self))
            }
        }

        impl $crate::choice::__serde::Serialize for $name {
            fn serialize<S: $crate::choice::__serde::Serializer>(
                &self,
                s: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_str($crate::choice::Choice::name(*self))
            }
        }

        impl<'de> $crate::choice::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::choice::__serde::Deserializer<'de>>(
                d: D,
            ) -> ::std::result::Result<Self, D::Error> {
                let s = <::std::string::String as $crate::choice::__serde::Deserialize>::deserialize(d)?;
                match s.as_str() {
                    $(stringify!($var) => return Ok(Self::$var),)+
                    _ => {}
                }
                <Self as $crate::choice::Choice>::from_name(&s)
                    .map_err(<D::Error as $crate::choice::__serde::de::Error>::custom)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Choice;

    crate::choice_enum! {
        /// A test choice.
        pub(super) enum Shade: "shade" default Dark {
            /// Light.
            Light => "light" | "pale",
            /// Dark and
            /// deep.
            Dark => "dark",
        }
    }

    #[test]
    fn names_aliases_help_and_errors() {
        assert_eq!(Shade::ALL, [Shade::Light, Shade::Dark]);
        assert_eq!(Shade::default(), Shade::Dark);
        assert_eq!(Shade::names(), ["light", "dark"]);
        assert_eq!("pale".parse::<Shade>(), Ok(Shade::Light));
        assert_eq!(Shade::Light.aliases(), ["pale"]);
        assert_eq!(Shade::Dark.help(), "Dark and deep.");
        let e = "Light".parse::<Shade>().unwrap_err();
        assert_eq!((e.what, e.got.as_str()), ("shade", "Light"));
        for s in Shade::ALL {
            assert_eq!(s.to_string().parse::<Shade>(), Ok(*s));
            let json = serde_json::to_string(s).unwrap();
            assert_eq!(serde_json::from_str::<Shade>(&json).unwrap(), *s);
        }
        assert!(serde_json::from_str::<Shade>("\"grey\"").is_err());
        assert_eq!(
            serde_json::from_str::<Shade>("\"Dark\"").unwrap(),
            Shade::Dark
        );
    }
}
