//! The data a program runs on: JSON values as jq has them ([`Jv`]), and the inputs that
//! `input` and `inputs` read — one type for every native filter (`builtins`, `compat`) and
//! the program that runs them.

use jaq_core::{DataT, Lut};
pub(crate) use jaq_std::input::RcIter;

use super::jv::Jv;

/// The kind of data programs run on: JSON values as jq has them, and the inputs that
/// `input` and `inputs` read.
pub(crate) struct Data;

/// The inputs `input` and `inputs` read (none but when the program pulls them).
pub(crate) type Inputs<'a> = jaq_std::input::Inputs<'a, Jv>;

impl DataT for Data {
    type V<'a> = Jv;
    type Data<'a> = Globals<'a>;
}

/// What every filter of a run sees: the definitions, and the inputs.
#[derive(Clone)]
pub(crate) struct Globals<'a> {
    pub(crate) lut: &'a Lut<Data>,
    pub(crate) inputs: Inputs<'a>,
}

impl<'a> jaq_core::data::HasLut<'a, Data> for Globals<'a> {
    fn lut(&self) -> &'a Lut<Data> {
        self.lut
    }
}

impl<'a> jaq_std::input::HasInputs<'a, Jv> for Globals<'a> {
    fn inputs(&self) -> Inputs<'a> {
        self.inputs
    }
}
