//! The binned batches a fit keeps between passes ([`Coded`]): in memory while they fit the
//! memory budget, else in an anonymous temporary file read back a batch at a time with plain
//! reads (no memory map, so the process's resident memory stays one batch whatever the data's
//! size). The file has no name once created (`tempfile::tempfile`), so the system removes it
//! when the fit ends, fails or is killed.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::time::Instant;

use super::coded::{Coded, Labels};
use crate::error::{CoreError, Result};
use crate::split::hist::Bins;

/// The batches of one pass of a fit, kept for its later passes.
pub struct KeptBatches {
    budget: usize,
    /// The pass whose batches these are.
    pass: Option<u64>,
    memory: Vec<Coded>,
    bytes: usize,
    spill: Option<Spill>,
    /// A batch without rows: which features are categorical, the targets' kind.
    shape: Option<Coded>,
    /// Seconds spent reading and rewriting the file since last asked.
    io: f64,
}

struct Spill {
    file: File,
    end: u64,
    records: Vec<Record>,
    buf: Vec<u8>,
}

/// Where a batch lies in the file.
struct Record {
    at: u64,
    len: usize,
    rows: usize,
    has_missing: Vec<bool>,
}

fn spill_error(e: &std::io::Error) -> CoreError {
    CoreError::InvalidParameter {
        name: "memory_budget",
        reason: format!(
            "the binned rows beyond the budget could not be kept in a temporary file in {} \
             ({e}); raise memory_budget or set TMPDIR to a directory with room",
            std::env::temp_dir().display()
        ),
    }
}

impl KeptBatches {
    /// A store holding up to `budget` bytes of binned rows in memory.
    pub fn new(budget: usize) -> KeptBatches {
        KeptBatches {
            budget,
            pass: None,
            memory: Vec::new(),
            bytes: 0,
            spill: None,
            shape: None,
            io: 0.0,
        }
    }

    /// Seconds spent reading and rewriting kept batches since the last call.
    pub(crate) fn take_io_seconds(&mut self) -> f64 {
        std::mem::take(&mut self.io)
    }

    /// The pass whose batches are kept (all of them once that pass ended).
    pub fn pass(&self) -> Option<u64> {
        self.pass
    }

    /// Whether the batches went to a temporary file.
    pub fn spilled(&self) -> bool {
        self.spill.is_some()
    }

    /// Bytes of binned rows kept (in memory or in the file).
    pub fn bytes(&self) -> u64 {
        match &self.spill {
            Some(s) => s.end,
            None => self.bytes as u64,
        }
    }

    /// Keeps a batch of pass `pass`, after those kept before.
    pub(crate) fn push(&mut self, pass: u64, coded: Coded) -> Result<()> {
        if self.pass.is_some_and(|p| p != pass) {
            return Err(CoreError::InvalidParameter {
                name: "keep",
                reason: format!(
                    "the kept batches are those of pass {}; a batch of pass {pass} cannot join \
                     them",
                    self.pass.unwrap_or(0)
                ),
            });
        }
        self.pass = Some(pass);
        if self.shape.is_none() {
            self.shape = Some(shape_of(&coded));
        }
        self.bytes += coded.bytes();
        if self.spill.is_none() && self.bytes <= self.budget {
            self.memory.push(coded);
            return Ok(());
        }
        if self.spill.is_none() {
            let file = tempfile::tempfile().map_err(|e| spill_error(&e))?;
            self.spill = Some(Spill {
                file,
                end: 0,
                records: Vec::new(),
                buf: Vec::new(),
            });
        }
        let Some(spill) = self.spill.as_mut() else {
            return Ok(());
        };
        for c in std::mem::take(&mut self.memory).iter().chain([&coded]) {
            spill.append(c).map_err(|e| spill_error(&e))?;
        }
        Ok(())
    }

    /// Calls `f` on each kept batch in order; with `nodes`, keeps the rows' nodes as `f`
    /// left them.
    pub(crate) fn each(
        &mut self,
        nodes: bool,
        mut f: impl FnMut(&mut Coded) -> Result<()>,
    ) -> Result<()> {
        let Some(spill) = self.spill.as_mut() else {
            return self.memory.iter_mut().try_for_each(f);
        };
        let Some(shape) = self.shape.as_ref() else {
            return Ok(());
        };
        for r in &spill.records {
            let start = Instant::now();
            spill.buf.resize(r.len, 0);
            let read = spill
                .file
                .seek(SeekFrom::Start(r.at))
                .and_then(|_| spill.file.read_exact(&mut spill.buf));
            read.map_err(|e| spill_error(&e))?;
            let mut coded = Coded::read(&spill.buf, r.rows, &r.has_missing, shape)
                .ok_or_else(|| spill_error(&std::io::ErrorKind::UnexpectedEof.into()))?;
            self.io += start.elapsed().as_secs_f64();
            f(&mut coded)?;
            if nodes {
                let start = Instant::now();
                spill.buf.clear();
                for x in &coded.nodes {
                    spill.buf.extend_from_slice(&x.to_le_bytes());
                }
                let written = spill
                    .file
                    .seek(SeekFrom::Start(r.at))
                    .and_then(|_| spill.file.write_all(&spill.buf));
                written.map_err(|e| spill_error(&e))?;
                self.io += start.elapsed().as_secs_f64();
            }
        }
        Ok(())
    }
}

impl Spill {
    fn append(&mut self, coded: &Coded) -> std::io::Result<()> {
        coded.write(&mut self.buf);
        self.file.seek(SeekFrom::Start(self.end))?;
        self.file.write_all(&self.buf)?;
        self.records.push(Record {
            at: self.end,
            len: self.buf.len(),
            rows: coded.len(),
            has_missing: coded.has_missing.clone(),
        });
        self.end += self.buf.len() as u64;
        Ok(())
    }
}

/// `coded` without rows.
fn shape_of(coded: &Coded) -> Coded {
    Coded {
        bins: Bins::from_columns(Vec::new()),
        cats: coded
            .cats
            .iter()
            .map(|c| c.as_ref().map(|_| Vec::new()))
            .collect(),
        labels: match coded.labels {
            Labels::Classes(_) => Labels::Classes(Vec::new()),
            Labels::Values(_) => Labels::Values(Vec::new()),
        },
        weights: Vec::new(),
        nodes: Vec::new(),
        has_missing: Vec::new(),
    }
}
