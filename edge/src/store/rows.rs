//! A statement's rows, read column by column into the objects' row structs.
//!
//! workers-rs reads a row (`SqlCursor::to_array`, `one`) with serde-wasm-bindgen: a
//! deserializer instantiated for every row type, whose error messages also bring `f64`
//! formatting into the wasm. Here the runtime's raw rows (arrays, `SqlCursor::raw`) fill a
//! struct's fields in order, and the cursor's column names are checked against the
//! field names first, so a row is still bound by name: a statement whose columns do not
//! match its struct is an error, never a silent swap.

use worker::{Error, Result, SqlCursor, SqlStorageValue};

/// A value one column holds, as a field type.
pub trait Column: Sized {
    /// What the column should hold, for the error.
    const WANTS: &'static str;
    fn from_sql(value: SqlStorageValue) -> Option<Self>;
}

/// A field type that one variant of the runtime's value fills.
macro_rules! column {
    ($ty:ty, $variant:ident, $wants:literal) => {
        impl Column for $ty {
            const WANTS: &'static str = $wants;
            fn from_sql(value: SqlStorageValue) -> Option<Self> {
                match value {
                    SqlStorageValue::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

column!(i64, Integer, "a safe integer");
column!(String, String, "text");
column!(Vec<u8>, Blob, "a BLOB");

impl<T: Column> Column for Option<T> {
    const WANTS: &'static str = T::WANTS;
    fn from_sql(value: SqlStorageValue) -> Option<Self> {
        match value {
            SqlStorageValue::Null => Some(None),
            value => T::from_sql(value).map(Some),
        }
    }
}

/// A row struct: its fields are the statement's columns, by name and in order. Declared
/// with [`row!`].
pub trait Row: Sized {
    /// Its field names, which the statement's column names must equal.
    const COLUMNS: &'static [&'static str];
    fn from_columns(columns: &mut Columns) -> Result<Self>;
}

/// One raw row, taken field by field.
pub struct Columns {
    values: std::vec::IntoIter<SqlStorageValue>,
    names: &'static [&'static str],
    at: usize,
}

impl Columns {
    /// The next column, as the next field's type.
    pub fn take<T: Column>(&mut self) -> Result<T> {
        let at = self.at;
        self.at += 1;
        self.values.next().and_then(T::from_sql).ok_or_else(|| {
            let name = self.names.get(at).copied().unwrap_or("?");
            Error::RustError(format!("column {name}: expected {}", T::WANTS))
        })
    }
}

/// Reading a cursor's rows as [`Row`]s.
pub trait ReadRows {
    /// Every row.
    fn all<R: Row>(&self) -> Result<Vec<R>>;
    /// The first row, if there is one.
    fn first<R: Row>(&self) -> Result<Option<R>>;
    /// The only row: none, or more than one, is an error (as the runtime's `one()`).
    fn single<R: Row>(&self) -> Result<R>;
    /// How many rows there are, whatever they hold.
    fn count_rows(&self) -> Result<usize>;
}

impl ReadRows for SqlCursor {
    fn all<R: Row>(&self) -> Result<Vec<R>> {
        named::<R>(self)?;
        self.raw().map(|values| read::<R>(values?)).collect()
    }

    fn first<R: Row>(&self) -> Result<Option<R>> {
        named::<R>(self)?;
        self.raw()
            .next()
            .map(|values| read::<R>(values?))
            .transpose()
    }

    fn single<R: Row>(&self) -> Result<R> {
        named::<R>(self)?;
        let mut raw = self.raw();
        match (raw.next(), raw.next()) {
            (Some(values), None) => read::<R>(values?),
            _ => Err(Error::RustError("expected exactly one row".to_owned())),
        }
    }

    fn count_rows(&self) -> Result<usize> {
        self.raw().try_fold(0, |n, values| values.map(|_| n + 1))
    }
}

fn named<R: Row>(cursor: &SqlCursor) -> Result<()> {
    let names = cursor.column_names();
    if names
        .iter()
        .map(String::as_str)
        .eq(R::COLUMNS.iter().copied())
    {
        return Ok(());
    }
    Err(Error::RustError(format!(
        "the statement's columns ({}) are not the row's ({})",
        names.join(", "),
        R::COLUMNS.join(", ")
    )))
}

fn read<R: Row>(values: Vec<SqlStorageValue>) -> Result<R> {
    R::from_columns(&mut Columns {
        values: values.into_iter(),
        names: R::COLUMNS,
        at: 0,
    })
}

/// Declares a struct whose fields are a statement's columns, by name and in order, and
/// implements [`Row`] for it.
macro_rules! row {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$field_meta])* $field_vis $field: $ty ),*
        }

        impl $crate::store::rows::Row for $name {
            const COLUMNS: &'static [&'static str] = &[$(stringify!($field)),*];
            fn from_columns(columns: &mut $crate::store::rows::Columns) -> worker::Result<Self> {
                Ok(Self { $( $field: columns.take()? ),* })
            }
        }
    };
}
pub(crate) use row;
