//! Command-line arguments. Every setting flag has the environment variable of the same name
//! that the Lambda functions read (`--public-url` / `SCANID_PUBLIC_URL`).

use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, Parser, Subcommand};
use scanid_core::config::{ConfigError, RawSettings, Setting, Settings, SETTINGS};
use scanid_core::context::StartError;

#[derive(Debug, Parser)]
#[command(
    name = "scanid",
    version,
    about = "scanid: OpenID Connect login by QR code, and a public identity directory"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every endpoint in one process on the embedded store.
    Serve(crate::serve::ServeArgs),
    /// Manage registered clients (relying parties).
    #[command(subcommand)]
    Client(crate::operator::ClientCommand),
    /// Manage signing keys: list, rotate (publish next, then activate), remove retired keys.
    #[command(subcommand)]
    Keys(crate::keys::KeysCommand),
    /// The reference app: enroll a device key, approve or deny a QR login, update the profile.
    #[command(subcommand)]
    App(crate::reference_app::AppCommand),
    /// Manage identities: list, show, groups, disable.
    #[command(subcommand)]
    Identity(crate::identity::IdentityCommand),
    /// AWS resources for operators not deploying with SAM (and for the emulator).
    #[command(subcommand)]
    Aws(crate::aws::AwsCommand),
    /// The route table (`--json`), and `generate`: the template's functions, functions/ and
    /// events/ from it.
    Routes(crate::routes::RoutesArgs),
}

/// The settings shared by `serve` and the operator commands: one global flag per row of
/// [`SETTINGS`] that has one (flag, variable and help text come from the row).
#[derive(Debug, Clone, Default)]
pub struct ConfigArgs(pub RawSettings);

impl std::ops::Deref for ConfigArgs {
    type Target = RawSettings;
    fn deref(&self) -> &RawSettings {
        &self.0
    }
}

impl std::ops::DerefMut for ConfigArgs {
    fn deref_mut(&mut self) -> &mut RawSettings {
        &mut self.0
    }
}

/// The flag of one setting, as `#[arg(long, env, global = true)]` made it.
fn config_arg(setting: &Setting) -> Option<Arg> {
    let flag = setting.flag?;
    let arg = Arg::new(setting.field)
        .long(flag)
        .env(setting.env)
        .help(match setting.default {
            Some(default) => format!("{} [default: {default}]", setting.help),
            None => setting.help.to_owned(),
        })
        .value_name(setting.env.trim_start_matches("SCANID_"))
        .value_parser(clap::value_parser!(String))
        .global(true);
    Some(if setting.repeatable {
        arg.action(ArgAction::Append).value_delimiter(',')
    } else {
        arg.action(ArgAction::Set)
    })
}

impl clap::FromArgMatches for ConfigArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut raw = RawSettings::default();
        for setting in SETTINGS.iter().filter(|s| s.flag.is_some()) {
            let value = if setting.repeatable {
                matches
                    .get_many::<String>(setting.field)
                    .map(|values| values.cloned().collect::<Vec<_>>().join(","))
            } else {
                matches.get_one::<String>(setting.field).cloned()
            };
            setting.set(&mut raw, value);
        }
        Ok(Self(raw))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for ConfigArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.args(SETTINGS.iter().filter_map(config_arg))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl ConfigArgs {
    /// Validated settings; `default_public_url` fills a missing public URL.
    pub fn settings(&self, default_public_url: &str) -> Result<Settings, CliError> {
        let mut raw = self.0.clone();
        raw.public_url
            .get_or_insert_with(|| default_public_url.to_owned());
        Ok(Settings::from_raw(&raw)?)
    }
}

/// Why a command failed, with its exit code: 2 for bad input or configuration, 1 otherwise.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Start(#[from] StartError),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Config(_) | CliError::Usage(_) => ExitCode::from(2),
            CliError::Start(StartError::Config(_)) => ExitCode::from(2),
            CliError::Start(_) | CliError::Failed(_) => ExitCode::FAILURE,
        }
    }
}

impl From<scanid_core::store::StoreError> for CliError {
    fn from(e: scanid_core::store::StoreError) -> Self {
        CliError::Failed(format!("store: {e}"))
    }
}

impl From<scanid_core::keys::SignError> for CliError {
    fn from(e: scanid_core::keys::SignError) -> Self {
        CliError::Failed(format!("signing keys: {e}"))
    }
}

/// Prints one JSON object on stdout.
pub fn print_json(value: &serde_json::Value) {
    println!("{value}");
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Serve(args) => crate::serve::run(args).await,
        Command::Client(cmd) => crate::operator::run(cmd).await,
        Command::Keys(cmd) => crate::keys::run(cmd).await,
        Command::App(cmd) => crate::reference_app::run(cmd).await,
        Command::Identity(cmd) => crate::identity::run(cmd).await,
        Command::Aws(cmd) => crate::aws::run(cmd).await,
        Command::Routes(args) => crate::routes::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Login ids are random base64url: one in 64 begins with `-`, and clap took it for a flag
    /// (`scanid app report ... -2fc9LjH3f7qlWEp` failed in CI). Every id argument takes it,
    /// before or after the flags, and the flags are still flags.
    #[test]
    fn an_id_may_begin_with_a_hyphen() {
        use crate::identity::IdentityCommand as I;
        use crate::reference_app::AppCommand as A;
        let id = |args: &[&str]| match Cli::try_parse_from(args) {
            Ok(Cli { command }) => match command {
                Command::App(A::Report(r)) => (r.login_id, r.common.server),
                Command::App(A::Withdraw(w)) => (w.client_id, w.common.server),
                Command::Identity(I::Show(w)) => (w.who, String::new()),
                Command::Identity(I::AddGroup(g)) => (g.who, g.group),
                Command::Identity(I::ReplaceKey(r)) => (r.who, r.public_key),
                Command::Identity(I::AddRole(r)) => (r.who, r.role),
                other => panic!("{args:?}: {other:?}"),
            },
            Err(e) => panic!("{args:?}: {e}"),
        };
        // (the command line after `scanid`, the id, and the other value it names)
        let cases: [(&str, &str, &str); 7] = [
            (
                "app report --key-file k -2fc9LjH3f7qlWEp",
                "-2fc9LjH3f7qlWEp",
                "http://127.0.0.1:8080",
            ),
            (
                "app report --key-file k --2fc9LjH3f7qlWE --server http://s",
                "--2fc9LjH3f7qlWE",
                "http://s",
            ),
            (
                "app withdraw -agent --key-file k",
                "-agent",
                "http://127.0.0.1:8080",
            ),
            ("identity show -x", "-x", ""),
            ("identity add-group -x admins", "-x", "admins"),
            ("identity replace-key -x --public-key AAAA", "-x", "AAAA"),
            (
                "identity add-role --name -x --role view-users",
                "-x",
                "view-users",
            ),
        ];
        for (line, want_id, want_other) in cases {
            let args: Vec<&str> = std::iter::once("scanid").chain(line.split(' ')).collect();
            assert_eq!(
                id(&args),
                (want_id.to_owned(), want_other.to_owned()),
                "{line}"
            );
        }
    }
}
