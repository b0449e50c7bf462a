//! Every argument error of a call in one answer: a handler checks all its
//! arguments through [`Checks`], then asks whether any failed, so a model
//! fixes every bad argument at once (as Keeper's own validation lists every
//! issue), each on its line with its path.

use super::failure::{invalid, merged};
use super::parse::Arg;
use crate::error::ToolError;

/// The argument checks of one call, gathered.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    errors: Vec<ToolError>,
}

impl Checks {
    /// Checks `value` as argument `arg`. A failure is kept and the default
    /// given in its place: it is never used, as [`Checks::done`] then fails.
    pub(crate) fn check<A: Arg>(&mut self, value: A, arg: &str) -> A::Checked
    where
        A::Checked: Default,
    {
        self.keep(value.check(arg)).unwrap_or_default()
    }

    /// Keeps the failure of a check made elsewhere; its value otherwise.
    pub(crate) fn keep<T>(&mut self, result: Result<T, ToolError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// Ok when every check passed; else one error listing them all.
    pub(crate) fn done(self) -> Result<(), ToolError> {
        match merged(self.errors) {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    /// `value` (kept by [`Checks::keep`]) when every check passed; else one
    /// error listing them all.
    pub(crate) fn done_with<T>(self, value: Option<T>) -> Result<T, ToolError> {
        self.done()?;
        value.ok_or_else(|| invalid("arguments", "could not be checked"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::args::Int;

    #[test]
    fn every_failure_is_listed_once_with_its_path() {
        let mut v = Checks::default();
        let ok = v.check(Int::<1, 200>::new(5), "limit");
        let bad = v.check(Int::<1, 200>::new(9999), "limit");
        let kept = v.keep::<u32>(Err(invalid("ref", "expected Kind/key")));
        assert_eq!((ok, bad, kept), (5, 0, None));
        let text = v
            .done()
            .unwrap_err()
            .render(&crate::config::Settings::default().output);
        assert_eq!(
            text,
            "[validation-failed] invalid arguments `limit`, `ref`\n  limit: must be between 1 and 200\n  ref: expected Kind/key\nnext: fix the issues above (one per line, with its path), then call again"
        );
    }

    #[test]
    fn one_failure_is_the_error_it_was() {
        let mut v = Checks::default();
        v.check(Int::<1, 200>::new(0), "limit");
        let e = v.done().unwrap_err();
        assert_eq!(e, invalid("limit", "must be between 1 and 200"));
        assert_eq!(Checks::default().done_with(Some(3)).unwrap(), 3);
    }
}
