//! The entity types, the one list of them: the built-in types' names here are exported to
//! Python as ``_native.TYPES`` (sidecar/redaction/_base.py checks them against
//! schemas.RedactionType at import), and an entity is a type and a code point span.

/// An entity type: a built-in one, or a type the engine learnt of (a configured pattern's,
/// or one a Python detector reported), numbered in the order the engine learnt them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    Email,
    Phone,
    Card,
    Iban,
    Ssn,
    Ip,
    Secret,
    NationalId,
    /// the n-th type after the built-in ones (configured patterns first)
    Custom(u16),
}

/// The built-in types, in the order of ``_native.TYPES``.
pub const TYPES: [Ty; 8] =
    [Ty::Email, Ty::Phone, Ty::Card, Ty::Iban, Ty::Ssn, Ty::Ip, Ty::Secret, Ty::NationalId];

/// How many built-in entity types there are.
pub const N_TYPES: usize = TYPES.len();

impl Ty {
    /// The built-in type's name (its placeholder's prefix); "CUSTOM" for the others, which
    /// are named by the table of the detector or replacer that knows them.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Email => "EMAIL",
            Ty::Phone => "PHONE",
            Ty::Card => "CREDIT_CARD",
            Ty::Iban => "IBAN",
            Ty::Ssn => "US_SSN",
            Ty::Ip => "IP_ADDRESS",
            Ty::Secret => "SECRET",
            Ty::NationalId => "NATIONAL_ID",
            Ty::Custom(_) => "CUSTOM",
        }
    }

    /// The type's place in a table of names: the built-in types, then the others.
    pub fn index(self) -> usize {
        match self {
            Ty::Custom(n) => N_TYPES + n as usize,
            _ => TYPES.iter().position(|&t| t == self).unwrap(),
        }
    }

    /// The type at place ``index`` of a table of names.
    pub fn at(index: usize) -> Option<Ty> {
        match index.checked_sub(N_TYPES) {
            None => Some(TYPES[index]),
            Some(n) => u16::try_from(n).ok().map(Ty::Custom),
        }
    }
}

/// An entity: type, code point span, canonical key (None: the span's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ent {
    pub ty: Ty,
    pub start: usize,
    pub end: usize,
    pub key: Option<String>,
}

impl Ent {
    pub fn new(ty: Ty, start: usize, end: usize, key: Option<String>) -> Self {
        Ent { ty, start, end, key }
    }
}

/// The built-in types' names, in order.
pub fn names() -> impl ExactSizeIterator<Item = &'static str> {
    TYPES.iter().map(|t| t.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_is_at_its_index() {
        for (i, &t) in TYPES.iter().enumerate() {
            assert_eq!(t.index(), i);
            assert_eq!(Ty::at(i), Some(t));
        }
        assert_eq!(Ty::at(N_TYPES + 3), Some(Ty::Custom(3)));
        assert_eq!(Ty::Custom(3).index(), N_TYPES + 3);
    }
}
