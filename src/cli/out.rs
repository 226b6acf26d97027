//! Writing the command's output to stdout. `println!` panics when stdout is
//! closed (`quire … | head` stops reading): the command's output is then
//! no longer wanted, so it ends quietly, as a Unix tool killed by SIGPIPE
//! would, instead of printing a panic and exiting 101. Every line the CLI
//! prints goes through [`outln!`] or [`out!`].

use std::io::Write;

/// Print to stdout as `print!` does, ending quietly if stdout is closed.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::out::write(format_args!($($arg)*), false)
    };
}

/// Print a line to stdout as `println!` does, ending quietly if stdout is
/// closed.
macro_rules! outln {
    () => {
        $crate::cli::out::write(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::cli::out::write(format_args!($($arg)*), true)
    };
}

/// Write `args` (and a newline) to stdout. A reader that went away ends the
/// process with success; any other failure to write ends it with an error,
/// said on stderr.
pub(crate) fn write(args: std::fmt::Arguments<'_>, newline: bool) {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_fmt(args)
        .and_then(|()| {
            if newline {
                stdout.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| if newline { Ok(()) } else { stdout.flush() });
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            std::process::exit(1);
        }
    }
}
