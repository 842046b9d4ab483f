//! The `scanid` command: `serve` runs every endpoint in one process; the operator commands
//! work on the same store while it runs. Commands that return data print one JSON object on
//! stdout; logs and errors go to stderr.

mod aws;
mod cli;
mod identity;
mod import;
mod keys;
mod operator;
mod reference_app;
mod routes;
mod serve;

use clap::Parser;

fn main() -> std::process::ExitCode {
    scanid_core::telemetry::init_cli();
    let cli = cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("scanid: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(cli::run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scanid: {e}");
            e.exit_code()
        }
    }
}
