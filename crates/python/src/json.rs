//! `json_loads(text)`: JSON text into Python objects, as `json.loads` makes them (objects into
//! dicts in their order, arrays into lists, integers into ints, numbers with a fraction or an
//! exponent into floats, `null` into None).
//!
//! It exists for start-up time, not speed: `westwood run` decodes the core's summary with it
//! instead of importing Python's `json`, which brings `re` and `enum` along and costs a run
//! about as much as a small scenario's simulation (docs/performance.md). Floats are parsed
//! correctly rounded (serde_json's `float_roundtrip`), so every float is the one the summary
//! was written from and the one `json.loads` would give.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Decode `text`; ValueError (as `json.JSONDecodeError` is) when it is not one JSON value.
#[pyfunction]
pub fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    // No recursion limit is needed beyond serde_json's own (128 levels): deeper input is an
    // error, not a stack overflow.
    let value = PythonValue(py)
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map_err(|e| PyValueError::new_err(format!("invalid JSON: {e}")))?;
    Ok(value)
}

/// Builds the Python object of one JSON value as serde_json reads it.
#[derive(Clone, Copy)]
struct PythonValue<'py>(Python<'py>);

impl<'de, 'py> DeserializeSeed<'de> for PythonValue<'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

fn python_error<E: de::Error>(err: PyErr) -> E {
    E::custom(err)
}

impl<'de, 'py> Visitor<'de> for PythonValue<'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(PyBool::new(self.0, v).to_owned().into_any())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(PyInt::new(self.0, v).into_any())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(PyInt::new(self.0, v).into_any())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(PyFloat::new(self.0, v).into_any())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.0, v).into_any())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.0.None().into_bound(self.0))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let list = PyList::empty(self.0);
        while let Some(item) = seq.next_element_seed(self)? {
            list.append(item).map_err(python_error)?;
        }
        Ok(list.into_any())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.0);
        // A repeated key keeps its first place and its last value, as in json.loads.
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value = map.next_value_seed(self)?;
            dict.set_item(key.as_ref(), value).map_err(python_error)?;
        }
        Ok(dict.into_any())
    }
}
