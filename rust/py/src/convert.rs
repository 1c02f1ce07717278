//! Python column tuples → borrowed core columns (no copy of the NumPy buffers).

use numpy::{PyArrayDescrMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use quercus_core::{
    CategoricalColumn, Codes, Column, Dataset, Float, Frame, FrameColumn, Numbers, Offsets, Sample,
    SparseColumn, Strided, Strings, Target, Text, TextLookup, Validity,
};

/// A column kept borrowed from NumPy for the duration of a call.
pub enum HeldColumn {
    /// Every `stride`-th value from `offset` of held array `array` (float64 when `wide`,
    /// else float32), `n_rows` of them: a contiguous column, or a column of a C-ordered
    /// matrix read in place (see [`Strided`]).
    Numeric {
        array: usize,
        wide: bool,
        offset: usize,
        stride: usize,
        n_rows: usize,
    },
    Categorical {
        codes: usize,
        missing: usize,
        n_categories: u32,
        ordered: bool,
    },
    /// One column of a CSC matrix: its stored rows and values at `start..stop` of the
    /// matrix's arrays, which [`HeldColumns`] borrows once for all its columns.
    Sparse {
        rows: usize,
        values: usize,
        start: usize,
        stop: usize,
        n_rows: usize,
    },
}

/// Columns kept borrowed from NumPy for the duration of a call, and the arrays they read, each
/// borrowed once (NumPy's borrow checks cost a scan of the borrows of the same array, so ten
/// thousand borrowed slices of one array would cost a hundred million): a CSC matrix's
/// `indices` and `data`, or a C-ordered matrix whose columns are read in place.
pub struct HeldColumns<'py> {
    columns: Vec<HeldColumn>,
    rows: Vec<PyReadonlyArray1<'py, u32>>,
    values: Vec<PyReadonlyArray1<'py, f64>>,
    narrow: Vec<PyReadonlyArray1<'py, f32>>,
    codes: Vec<PyReadonlyArray1<'py, u32>>,
    missing: Vec<PyReadonlyArray1<'py, bool>>,
}

/// The index of `array` in `held`, borrowing it there unless it already is.
fn held_once<'py, T: numpy::Element>(
    held: &mut Vec<PyReadonlyArray1<'py, T>>,
    array: &Bound<'py, PyAny>,
) -> PyResult<usize> {
    if let Some(i) = held.iter().position(|a| a.as_ptr() == array.as_ptr()) {
        return Ok(i);
    }
    held.push(array.extract()?);
    Ok(held.len() - 1)
}

/// Reads `("numeric", values)` or `("numeric", values, flat, offset, stride)` (float64 or
/// float32 values; `values` is every `stride`-th of the 1-D `flat` from `offset`) / `("categorical", codes, missing, n_categories, ordered)` /
/// `("sparse", rows, values, start, stop, n_rows)`.
pub fn hold_columns<'py>(columns: &Bound<'py, PyList>) -> PyResult<HeldColumns<'py>> {
    let mut held = HeldColumns {
        columns: Vec::with_capacity(columns.len()),
        rows: Vec::new(),
        values: Vec::new(),
        narrow: Vec::new(),
        codes: Vec::new(),
        missing: Vec::new(),
    };
    for (j, item) in columns.iter().enumerate() {
        let t = item
            .cast::<PyTuple>()
            .map_err(|_| PyTypeError::new_err(format!("column {j}: expected a tuple")))?;
        let kind: String = t.get_item(0)?.extract()?;
        let column = match kind.as_str() {
            "numeric" => {
                let n_rows = t.get_item(1)?.len()?;
                // A column of a C-ordered matrix: its own (strided) view first, for the
                // facade, then the matrix's flat view, where it starts, and its stride.
                let (values, offset, stride) = if t.len() == 5 {
                    let at = (t.get_item(3)?.extract()?, t.get_item(4)?.extract()?);
                    (t.get_item(2)?, at.0, at.1)
                } else {
                    (t.get_item(1)?, 0, 1)
                };
                let wide = values
                    .cast::<numpy::PyUntypedArray>()
                    .is_ok_and(|a| a.dtype().is_equiv_to(&numpy::dtype::<f64>(t.py())));
                let array = if wide {
                    held_once(&mut held.values, &values)?
                } else {
                    held_once(&mut held.narrow, &values).map_err(|_| {
                        PyTypeError::new_err(format!(
                            "column {j}: numbers must be a 1-D float64 or float32 array"
                        ))
                    })?
                };
                HeldColumn::Numeric {
                    array,
                    wide,
                    offset,
                    stride,
                    n_rows,
                }
            }
            "categorical" => HeldColumn::Categorical {
                codes: held_once(&mut held.codes, &t.get_item(1)?)?,
                missing: held_once(&mut held.missing, &t.get_item(2)?)?,
                n_categories: t.get_item(3)?.extract()?,
                ordered: t.get_item(4)?.extract()?,
            },
            "sparse" => HeldColumn::Sparse {
                rows: held_once(&mut held.rows, &t.get_item(1)?)?,
                values: held_once(&mut held.values, &t.get_item(2)?)?,
                start: t.get_item(3)?.extract()?,
                stop: t.get_item(4)?.extract()?,
                n_rows: t.get_item(5)?.extract()?,
            },
            other => {
                return Err(PyValueError::new_err(format!(
                    "column {j}: unknown column kind {other:?}"
                )))
            }
        };
        held.columns.push(column);
    }
    Ok(held)
}

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, j: usize) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("column {j}: the array is not contiguous")))
}

/// Held array `i`, for column `j`.
fn whole<'a, T: numpy::Element>(
    held: &'a [PyReadonlyArray1<'_, T>],
    i: usize,
    j: usize,
) -> PyResult<&'a [T]> {
    Ok(held.get(i).map(|a| slice(a, j)).transpose()?.unwrap_or(&[]))
}

/// Every `stride`-th value from `offset` of held array `i`, `n_rows` of them, for column `j`.
fn strided<'a, T: numpy::Element + Float>(
    held: &'a [PyReadonlyArray1<'_, T>],
    i: usize,
    (offset, stride, n_rows): (usize, usize, usize),
    j: usize,
) -> PyResult<Strided<'a, T>> {
    let values = whole(held, i, j)?;
    values
        .get(offset..)
        .and_then(|v| Strided::new(v, stride, n_rows))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "column {j}: {n_rows} values from {offset} by {stride} lie outside the array's {}",
                values.len()
            ))
        })
}

/// `start..stop` of held array `i`, for column `j`.
fn part<'a, T: numpy::Element>(
    held: &'a [PyReadonlyArray1<'_, T>],
    i: usize,
    (start, stop): (usize, usize),
    j: usize,
) -> PyResult<&'a [T]> {
    let whole = whole(held, i, j)?;
    whole.get(start..stop).ok_or_else(|| {
        PyValueError::new_err(format!(
            "column {j}: stored values {start}..{stop} are out of the array's {}",
            whole.len()
        ))
    })
}

/// Borrows the held arrays as a core data set.
pub fn dataset<'a>(held: &'a HeldColumns<'_>) -> PyResult<Dataset<'a>> {
    let columns = held
        .columns
        .iter()
        .enumerate()
        .map(|(j, h)| match h {
            HeldColumn::Numeric {
                array,
                wide,
                offset,
                stride,
                n_rows,
            } => {
                let at = (*offset, *stride, *n_rows);
                Ok(Column::Numeric(if *wide {
                    Numbers::F64(strided(&held.values, *array, at, j)?)
                } else {
                    Numbers::F32(strided(&held.narrow, *array, at, j)?)
                }))
            }
            HeldColumn::Categorical {
                codes,
                missing,
                n_categories,
                ordered,
            } => Ok(Column::Categorical(CategoricalColumn {
                codes: whole(&held.codes, *codes, j)?,
                missing_mask: Some(whole(&held.missing, *missing, j)?),
                n_categories: *n_categories,
                ordered: *ordered,
            })),
            HeldColumn::Sparse {
                rows,
                values,
                start,
                stop,
                n_rows,
            } => Ok(Column::Sparse(SparseColumn {
                rows: part(&held.rows, *rows, (*start, *stop), j)?,
                values: part(&held.values, *values, (*start, *stop), j)?,
                n_rows: *n_rows,
            })),
        })
        .collect::<PyResult<Vec<_>>>()?;
    Dataset::new(columns).map_err(crate::errors::to_py)
}

/// A target array kept borrowed for the duration of a call.
pub enum HeldTarget<'py> {
    Classes(PyReadonlyArray1<'py, u32>, usize),
    Values(PyReadonlyArray1<'py, f64>),
    /// One column per output, row-major.
    MultiClasses(PyReadonlyArray2<'py, u32>, Vec<usize>),
    MultiValues(PyReadonlyArray2<'py, f64>),
}

/// The classes of a target as the facade passes them: one count for a 1-D y (0 for
/// regression), or one per column of a 2-D class-code y.
#[derive(FromPyObject)]
pub enum ClassCounts {
    One(usize),
    Each(Vec<usize>),
}

impl ClassCounts {
    pub fn to_vec(&self) -> Vec<usize> {
        match self {
            ClassCounts::One(k) => vec![*k],
            ClassCounts::Each(v) => v.clone(),
        }
    }
}

impl<'py> HeldTarget<'py> {
    /// `y` for outputs with `classes` each: a 1-D array with one entry (class codes when it is
    /// positive, regression values when 0), or a C-contiguous 2-D array with one column per
    /// output (class codes with their counts, or regression values when every count is 0;
    /// then the columns say how many outputs there are).
    pub fn hold(y: &Bound<'py, PyAny>, classes: &[usize]) -> PyResult<Self> {
        let real = classes.iter().all(|&k| k == 0);
        if let Ok(array) = y.cast::<numpy::PyUntypedArray>() {
            if array.ndim() == 2 {
                if !array.is_c_contiguous() {
                    return Err(PyValueError::new_err("a 2-D y must be C-contiguous"));
                }
                let columns = array.shape().get(1).copied().unwrap_or(0);
                if real {
                    return Ok(HeldTarget::MultiValues(y.extract()?));
                }
                if columns != classes.len() {
                    return Err(PyValueError::new_err(format!(
                        "y has {columns} columns but {} outputs' classes were given",
                        classes.len()
                    )));
                }
                return Ok(HeldTarget::MultiClasses(y.extract()?, classes.to_vec()));
            }
        }
        match classes {
            [k] if *k > 0 => Ok(HeldTarget::Classes(y.extract()?, *k)),
            [_] | [] if real => Ok(HeldTarget::Values(y.extract()?)),
            _ => Err(PyValueError::new_err(format!(
                "a 1-D y has one output, but {} outputs' classes were given",
                classes.len()
            ))),
        }
    }

    pub fn target(&self) -> PyResult<Target<'_>> {
        let not_contiguous = |_| PyValueError::new_err("y is not contiguous");
        Ok(match self {
            HeldTarget::Classes(codes, n_classes) => Target::Classes {
                codes: codes.as_slice().map_err(not_contiguous)?,
                n_classes: *n_classes,
            },
            HeldTarget::Values(v) => Target::Values(v.as_slice().map_err(not_contiguous)?),
            HeldTarget::MultiClasses(codes, n_classes) => Target::MultiClasses {
                codes: codes.as_slice().map_err(not_contiguous)?,
                n_classes,
            },
            HeldTarget::MultiValues(v) => Target::MultiValues {
                values: v.as_slice().map_err(not_contiguous)?,
                n_outputs: v.shape().get(1).copied().unwrap_or(0),
            },
        })
    }
}

pub fn weights<'a>(w: &'a PyReadonlyArray1<'_, f64>) -> PyResult<&'a [f64]> {
    w.as_slice()
        .map_err(|_| PyValueError::new_err("sample_weight is not contiguous"))
}

/// `(columns, y, sample_weight)`: a labelled data set as the facade passes it.
pub type SampleTuple<'py> = (
    Bound<'py, PyList>,
    Bound<'py, PyAny>,
    PyReadonlyArray1<'py, f64>,
);

/// A labelled data set (training or validation rows) kept borrowed from NumPy.
pub struct HeldSample<'py> {
    columns: HeldColumns<'py>,
    y: HeldTarget<'py>,
    weights: PyReadonlyArray1<'py, f64>,
}

impl<'py> HeldSample<'py> {
    pub fn hold(
        columns: &Bound<'py, PyList>,
        y: &Bound<'py, PyAny>,
        weights: PyReadonlyArray1<'py, f64>,
        classes: &[usize],
    ) -> PyResult<Self> {
        Ok(HeldSample {
            columns: hold_columns(columns)?,
            y: HeldTarget::hold(y, classes)?,
            weights,
        })
    }

    pub fn from_tuple(
        (columns, y, weights): SampleTuple<'py>,
        classes: &[usize],
    ) -> PyResult<Self> {
        Self::hold(&columns, &y, weights, classes)
    }

    /// Runs `f` on the rows as a core [`Sample`].
    pub fn with<R>(&self, f: impl FnOnce(&Sample<'_, '_>) -> R) -> PyResult<R> {
        let data = dataset(&self.columns)?;
        let target = self.y.target()?;
        let sample = Sample {
            data: &data,
            target: &target,
            weights: weights(&self.weights)?,
        };
        Ok(f(&sample))
    }
}

/// A frame column's arrays kept borrowed from NumPy for the duration of a prediction.
enum HeldFrameColumn<'py> {
    F32(PyReadonlyArray1<'py, f32>),
    F64(PyReadonlyArray1<'py, f64>),
    Codes {
        codes: HeldCodes<'py>,
        map: Option<PyReadonlyArray1<'py, u32>>,
        n_categories: u32,
    },
    Text {
        views: PyReadonlyArray1<'py, u8>,
        data: PyReadonlyArray1<'py, u8>,
        starts: PyReadonlyArray1<'py, u64>,
        lookup: Bound<'py, PyTextLookup>,
    },
    Strings {
        offsets: HeldOffsets<'py>,
        data: PyReadonlyArray1<'py, u8>,
        lookup: Bound<'py, PyTextLookup>,
    },
}

enum HeldOffsets<'py> {
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
}

/// A column's Arrow validity bitmap and the bit of its first row (None: no null).
type HeldNulls<'py> = Option<(PyReadonlyArray1<'py, u8>, usize)>;

/// A feature's categories as the lookup of its text columns' labels (see [`TextLookup`]),
/// made once per feature by the facade.
#[pyclass(frozen, name = "TextLookup", module = "quercus._core")]
pub struct PyTextLookup {
    inner: TextLookup,
}

#[pymethods]
impl PyTextLookup {
    #[new]
    fn new(categories: Vec<String>) -> Self {
        PyTextLookup {
            inner: TextLookup::new(&categories),
        }
    }
}

enum HeldCodes<'py> {
    U8(PyReadonlyArray1<'py, u8>),
    U16(PyReadonlyArray1<'py, u16>),
    U32(PyReadonlyArray1<'py, u32>),
}

/// A data frame's columns as the facade passes them for prediction (each read in place),
/// with their validity bitmaps.
pub struct HeldFrame<'py>(Vec<(HeldFrameColumn<'py>, HeldNulls<'py>)>);

/// Reads `("numeric", float32 or float64 values)` / `("codes", uint8, uint16 or uint32 codes,
/// uint32 map or None, n_categories)` / `("text", uint8 views, uint8 data, uint64 starts,
/// TextLookup)` / `("strings", int32 or int64 offsets, uint8 data, TextLookup)` per column, each optionally followed by Arrow's validity bitmap (uint8, or
/// None) and the bit of its first row, where the column holds nulls: their slots are then
/// read as missing whatever they hold.
pub fn hold_frame<'py>(columns: &Bound<'py, PyList>) -> PyResult<HeldFrame<'py>> {
    let mut held = Vec::with_capacity(columns.len());
    for (j, item) in columns.iter().enumerate() {
        let t = item
            .cast::<PyTuple>()
            .map_err(|_| PyTypeError::new_err(format!("column {j}: expected a tuple")))?;
        let kind: String = t.get_item(0)?.extract()?;
        let values = t.get_item(1)?;
        let fields = match kind.as_str() {
            "numeric" => 2,
            "codes" | "strings" => 4,
            _ => 5,
        };
        let nulls: HeldNulls<'py> = if t.len() > fields {
            let bits: Option<PyReadonlyArray1<'py, u8>> = t.get_item(fields)?.extract()?;
            bits.map(|b| Ok::<_, PyErr>((b, t.get_item(fields + 1)?.extract()?)))
                .transpose()?
        } else {
            None
        };
        let column = match kind.as_str() {
            "numeric" => match values.extract() {
                Ok(v) => HeldFrameColumn::F32(v),
                Err(_) => HeldFrameColumn::F64(values.extract().map_err(|_| {
                    PyTypeError::new_err(format!("column {j}: numbers must be float32 or float64"))
                })?),
            },
            "codes" => {
                let codes = if let Ok(c) = values.extract() {
                    HeldCodes::U8(c)
                } else if let Ok(c) = values.extract() {
                    HeldCodes::U16(c)
                } else {
                    HeldCodes::U32(values.extract().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "column {j}: codes must be uint8, uint16 or uint32"
                        ))
                    })?)
                };
                HeldFrameColumn::Codes {
                    codes,
                    map: t.get_item(2)?.extract()?,
                    n_categories: t.get_item(3)?.extract()?,
                }
            }
            "strings" => HeldFrameColumn::Strings {
                offsets: match values.extract() {
                    Ok(o) => HeldOffsets::I32(o),
                    Err(_) => HeldOffsets::I64(values.extract().map_err(|_| {
                        PyTypeError::new_err(format!("column {j}: offsets must be int32 or int64"))
                    })?),
                },
                data: t.get_item(2)?.extract()?,
                lookup: t.get_item(3)?.cast_into::<PyTextLookup>()?,
            },
            "text" => HeldFrameColumn::Text {
                views: values.extract()?,
                data: t.get_item(2)?.extract()?,
                starts: t.get_item(3)?.extract()?,
                lookup: t.get_item(4)?.cast_into::<PyTextLookup>()?,
            },
            other => {
                return Err(PyValueError::new_err(format!(
                    "column {j}: unknown frame column kind {other:?}"
                )))
            }
        };
        held.push((column, nulls));
    }
    Ok(HeldFrame(held))
}

/// Borrows the held arrays as a core frame.
pub fn frame<'a>(held: &'a HeldFrame<'_>) -> PyResult<Frame<'a>> {
    let columns = held
        .0
        .iter()
        .enumerate()
        .map(|(j, (h, _))| {
            Ok(match h {
                HeldFrameColumn::F32(v) => FrameColumn::F32(slice(v, j)?),
                HeldFrameColumn::F64(v) => FrameColumn::F64(slice(v, j)?),
                HeldFrameColumn::Codes {
                    codes,
                    map,
                    n_categories,
                } => FrameColumn::Categorical {
                    codes: match codes {
                        HeldCodes::U8(c) => Codes::U8(slice(c, j)?),
                        HeldCodes::U16(c) => Codes::U16(slice(c, j)?),
                        HeldCodes::U32(c) => Codes::U32(slice(c, j)?),
                    },
                    map: map.as_ref().map(|m| slice(m, j)).transpose()?,
                    n_categories: *n_categories,
                },
                HeldFrameColumn::Text {
                    views,
                    data,
                    starts,
                    lookup,
                } => FrameColumn::Text(Text {
                    views: slice(views, j)?,
                    data: slice(data, j)?,
                    starts: slice(starts, j)?,
                    lookup: &lookup.get().inner,
                }),
                HeldFrameColumn::Strings {
                    offsets,
                    data,
                    lookup,
                } => FrameColumn::Strings(Strings {
                    offsets: match offsets {
                        HeldOffsets::I32(o) => Offsets::I32(slice(o, j)?),
                        HeldOffsets::I64(o) => Offsets::I64(slice(o, j)?),
                    },
                    data: slice(data, j)?,
                    lookup: &lookup.get().inner,
                }),
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let nulls = held
        .0
        .iter()
        .enumerate()
        .map(|(j, (_, nulls))| match nulls {
            Some((bits, first)) => Ok(Some(Validity {
                bits: slice(bits, j)?,
                first: *first,
            })),
            None => Ok(None),
        })
        .collect::<PyResult<Vec<_>>>()?;
    Frame::with_nulls(columns, nulls).map_err(crate::errors::to_py)
}
