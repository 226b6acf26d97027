//! ASReview LAB, run as its users run it, for side-by-side figures: a
//! Python virtual environment under `target/asreview` with ASReview from the
//! Python registry (made the first time, reused after), `asreview simulate`
//! on a CSV with given prior records and seed, and the order it screened
//! read back from its project file with ASReview's own reader.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The release measured against: pinned, so figures compare across runs.
const VERSION: &str = "3.0.8";

/// Prints the records a project screened after its priors, in order, one
/// per line as `record_id label`: the project file is a zip holding
/// ASReview's results database.
const READ_ORDER: &str = "import sys, tempfile, zipfile, pathlib
from asreview import open_db
with tempfile.TemporaryDirectory() as tmp:
    zipfile.ZipFile(sys.argv[1]).extractall(tmp)
    db = open_db(pathlib.Path(tmp, 'results.db'), read_only=True)
    table = db.get_results_table(['record_id', 'label'], priors=False)
    for record, label in zip(table['record_id'], table['label']):
        print(int(record), int(label))
    db.close()
";

pub(crate) struct Asreview {
    venv: PathBuf,
}

impl Asreview {
    /// The environment, made and filled if it is not there yet.
    pub(crate) fn install() -> Result<Self, String> {
        let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/asreview");
        let this = Self { venv };
        if this.version().as_deref() == Some(VERSION) {
            return Ok(this);
        }
        eprintln!(
            "installing ASReview LAB {VERSION} in {}",
            this.venv.display()
        );
        run(Command::new("python3")
            .arg("-m")
            .arg("venv")
            .arg(&this.venv))?;
        run(Command::new(this.bin("pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(format!("asreview=={VERSION}")))?;
        match this.version() {
            Some(v) if v == VERSION => Ok(this),
            other => Err(format!("ASReview did not install ({other:?})")),
        }
    }

    fn bin(&self, name: &str) -> PathBuf {
        self.venv.join("bin").join(name)
    }

    fn version(&self) -> Option<String> {
        let out = Command::new(self.bin("python"))
            .args(["-c", "import asreview; print(asreview.__version__)"])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    /// `asreview simulate` on `csv` from the prior rows `(include, exclude)`
    /// (0-based) with its default model; the rows it screened after them,
    /// each with the label ASReview revealed for it.
    pub(crate) fn simulate(
        &self,
        csv: &Path,
        (include, exclude): (usize, usize),
        seed: u64,
    ) -> Result<Vec<(usize, bool)>, String> {
        let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
        let project = scratch.path().join("simulation.asreview");
        let csv = csv
            .canonicalize()
            .map_err(|e| format!("{}: {e}", csv.display()))?;
        // In the scratch folder: ASReview leaves a dataset cache where it runs.
        run(Command::new(self.bin("asreview"))
            .current_dir(scratch.path())
            .arg("simulate")
            .arg(&csv)
            .arg("--prior-idx")
            .args([include.to_string(), exclude.to_string()])
            .args(["--seed", &seed.to_string()])
            .arg("--output")
            .arg(&project))?;
        let out = run(Command::new(self.bin("python"))
            .args(["-c", READ_ORDER])
            .arg(&project))?;
        // ASReview numbers records by row, from 0, as --prior-idx does;
        // the labels let the caller check that it reads the rows alike.
        let order = out
            .lines()
            .filter_map(|l| {
                let (row, label) = l.trim().split_once(' ')?;
                Some((row.parse().ok()?, label == "1"))
            })
            .filter(|&(row, _)| row != include && row != exclude)
            .collect();
        Ok(order)
    }
}

/// Run `command`; its standard output, or an error with its standard error.
fn run(command: &mut Command) -> Result<String, String> {
    let out = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(8).collect();
        return Err(format!(
            "{:?} failed: {}",
            command.get_program(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
