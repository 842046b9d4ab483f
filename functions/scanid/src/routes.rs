//! `scanid routes`: the route table (`--json`: each function with its routes, handler, access
//! and what its template block says), and `scanid routes generate`, which writes what the
//! table generates: the function blocks of `template.yaml`, `functions/<name>/` and
//! `events/<name>.json` (`scanid_http::generate`).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use scanid_http::generate;
use scanid_http::routes::ROUTES;

use crate::cli::{print_json, CliError};

#[derive(Debug, Args)]
pub struct RoutesArgs {
    /// Print the table as one JSON object: its functions, their routes, access and extras.
    #[arg(long)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Option<RoutesCommand>,
}

#[derive(Debug, Subcommand)]
pub enum RoutesCommand {
    /// Write the generated files: template.yaml's function blocks, functions/NAME/ and
    /// events/NAME.json (run from the repository's root, or give --root).
    Generate(GenerateArgs),
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The repository's root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Write nothing; fail if a generated file is not up to date.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: RoutesArgs) -> Result<(), CliError> {
    match args.command {
        Some(RoutesCommand::Generate(g)) => generate_files(&g.root, g.check),
        None if args.json => {
            print_json(&generate::table_json().map_err(CliError::Failed)?);
            Ok(())
        }
        None => {
            for r in ROUTES {
                println!(
                    "{:<7} {:<72} {} ({:?})",
                    r.method,
                    r.path,
                    r.function,
                    r.handler.access()
                );
            }
            Ok(())
        }
    }
}

fn generate_files(root: &Path, check: bool) -> Result<(), CliError> {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let template = read(&root.join("template.yaml")).ok_or_else(|| {
        CliError::Usage(format!(
            "no template.yaml in {} (run from the repository's root, or give --root)",
            root.display()
        ))
    })?;
    let mut stale = Vec::new();
    for (path, text) in generate::files(&template).map_err(CliError::Failed)? {
        let full = root.join(&path);
        if read(&full).as_deref() == Some(text.as_str()) {
            continue;
        }
        stale.push(path);
        if !check {
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| CliError::Failed(format!("{}: {e}", dir.display())))?;
            }
            std::fs::write(&full, text)
                .map_err(|e| CliError::Failed(format!("{}: {e}", full.display())))?;
        }
    }
    match (check, stale.is_empty()) {
        (true, false) => Err(CliError::Failed(format!(
            "not up to date (run `scanid routes generate`): {}",
            stale.join(", ")
        ))),
        (true, true) => {
            eprintln!("the generated files are up to date");
            Ok(())
        }
        (false, _) => {
            eprintln!("wrote {} file(s): {}", stale.len(), stale.join(", "));
            Ok(())
        }
    }
}
