//! Python methods that come in two directions.
//!
//! Many classes here have an `encrypt_*` and a `decrypt_*` method that take
//! the same arguments and differ only in the direction they pass to one
//! Rust function. [`both_ways!`] writes such a pair once: pyo3's
//! `#[pymethods]` must see every method of a class in one `impl` block, so
//! the macro emits that block, with the class's other methods as given.

/// Emits `#[pymethods] impl $ty { .. }`: the methods in braces as they are,
/// then for each pair a method `$enc` calling
/// `self.$via(py, true, conversions..)` (`$via` a method, or a path to one
/// such as `0.call`) and a method `$dec` calling it with
/// `false`, its result converted with `Into` to the method's return type
/// (so that one function can serve methods that return less of what it
/// makes). Each name carries its own doc comment; attributes after the pair
/// (such as `#[pyo3(signature = ..)]`) apply to both; the arguments follow
/// `py` in both, and their lifetime is `'py`.
macro_rules! both_ways {
    (
        impl $ty:ident { $($item:tt)* }
        $(
            $(#[$enc_doc:meta])* $enc:ident,
            $(#[$dec_doc:meta])* $dec:ident,
            $(#[$attr:meta])*
            ($($arg:ident: $arg_ty:ty),*) -> $ret:ty = $($via:tt).+ ($($conv:expr),*);
        )+
    ) => {
        #[pymethods]
        impl $ty {
            $($item)*
            $(
                $(#[$enc_doc])*
                $(#[$attr])*
                fn $enc<'py>(&self, py: Python<'py>, $($arg: $arg_ty),*) -> $ret {
                    self.$($via).+(py, true, $($conv),*).map(Into::into)
                }

                $(#[$dec_doc])*
                $(#[$attr])*
                fn $dec<'py>(&self, py: Python<'py>, $($arg: $arg_ty),*) -> $ret {
                    self.$($via).+(py, false, $($conv),*).map(Into::into)
                }
            )+
        }
    };
}
pub(crate) use both_ways;
