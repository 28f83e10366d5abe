//! Pulumi's command-line surface on clap: the root (persistent) flags every `pulumi` command
//! accepts before or after its name, cobra's flag syntax (`--flag=true|false` for booleans,
//! repeated flags, the last one winning), and flag errors in cobra's words, so that a client
//! driving `pulumi` (the Automation API) drives stepdeck unchanged.

use std::error::Error as _;
use std::path::PathBuf;

use clap::builder::BoolishValueParser;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgAction, Args, Command};

/// Pulumi's root flags. Every one is a clap global, accepted anywhere after the program name,
/// as cobra accepts persistent flags. Those without a meaning for stepdeck are accepted and
/// ignored (README "Using stepdeck as `pulumi`").
#[derive(Debug, Clone, Default, Args)]
pub(super) struct GlobalArgs {
    /// Run as if started in this directory.
    #[arg(short = 'C', long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Where state is kept (`file://DIR`, `postgres://…`); else `PULUMI_BACKEND_URL`, else the
    /// project's `backend.url`, else the one `login` recorded, else `file://~/.stepdeck`.
    #[arg(long, global = true, env = "STEPDECK_BACKEND_URL", value_name = "URL")]
    pub backend: Option<String>,
    /// Never prompt: deployments print plain progress lines instead of opening the console.
    #[arg(long, global = true)]
    pub non_interactive: bool,
    /// Colorize output: auto, always, never or raw (stepdeck's plain and JSON output carry no
    /// colors, as with `never`).
    #[arg(long, global = true, value_name = "COLOR")]
    pub color: Option<String>,
    /// Print stack names in full (`organization/<project>/<stack>`), even of this project.
    #[arg(short = 'Q', long, global = true)]
    pub fully_qualify_stack_names: bool,
    /// Log verbosity (accepted; stepdeck keeps no log files). Without a level it is `whoami`'s
    /// `--verbose`, which cobra lets that command declare over the root's.
    #[arg(short = 'v', long, global = true, value_name = "LEVEL", num_args = 0..=1, default_missing_value = "1")]
    pub verbose: Option<i32>,
    /// Enable emojis (accepted; stepdeck prints none).
    #[arg(short = 'e', long, global = true)]
    pub emoji: bool,
    /// Log to standard error (accepted; stepdeck keeps no log files).
    #[arg(long, global = true)]
    pub logtostderr: bool,
    /// Pass log settings to plugins (accepted; stepdeck keeps no log files).
    #[arg(long, global = true)]
    pub logflow: bool,
    /// Emit tracing to this endpoint (accepted; stepdeck does not trace).
    #[arg(long, global = true, value_name = "URL")]
    pub tracing: Option<String>,
    /// Tracing header (accepted; stepdeck does not trace).
    #[arg(long, global = true, hide = true, value_name = "HEADER")]
    pub tracing_header: Option<String>,
    /// Export OpenTelemetry traces (accepted; stepdeck does not trace).
    #[arg(long, global = true, value_name = "URL")]
    pub otel_traces: Option<String>,
    /// Write CPU and memory profiles (accepted; stepdeck writes none).
    #[arg(long, global = true, value_name = "PREFIX")]
    pub profiling: Option<String>,
    /// Memory profile rate (accepted; stepdeck writes no profiles).
    #[arg(long, global = true, value_name = "RATE")]
    pub memprofilerate: Option<i64>,
    /// Skip checkpoint verification (accepted; stepdeck always checks a stack's integrity,
    /// and `state repair` fixes a stack that fails it).
    #[arg(long, global = true)]
    pub disable_integrity_checking: bool,
}

/// The values `--color` takes.
const COLORS: [&str; 4] = ["auto", "always", "never", "raw"];

impl GlobalArgs {
    /// Checks what Pulumi checks before any command runs: the `--color` value.
    pub(super) fn validate(&self) -> Result<(), String> {
        match self.color.as_deref() {
            Some(c) if !COLORS.contains(&c) => Err(format!(
                "unsupported color option: '{c}'.  Supported values are: {}",
                COLORS.join(", ")
            )),
            _ => Ok(()),
        }
    }
}

/// cobra's flag syntax on a clap command tree: every boolean flag also takes `=true` or
/// `=false` (`--run-program=false`), and a flag given twice keeps its last value.
pub(super) fn cobra_syntax(cmd: Command) -> Command {
    cmd.args_override_self(true)
        .mut_args(|arg| {
            if matches!(arg.get_action(), ArgAction::SetTrue) {
                arg.action(ArgAction::Set)
                    .num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("true")
                    .default_value("false")
                    .value_parser(BoolishValueParser::new())
            } else {
                arg
            }
        })
        .mut_subcommands(cobra_syntax)
}

/// A flag error as cobra words it (`invalid argument "1.1" for "-p, --parallel" flag: …`,
/// `unknown flag: --x`); `None` for errors cobra has no words of its own for.
pub(super) fn cobra_message(e: &clap::Error, cmd: &Command) -> Option<String> {
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    match e.kind() {
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let arg = text(ContextKind::InvalidArg)?;
            let value = text(ContextKind::InvalidValue).unwrap_or_default();
            let reason = e.source().map(|s| format!(": {s}")).unwrap_or_else(|| {
                match e.get(ContextKind::ValidValue) {
                    Some(ContextValue::Strings(valid)) => {
                        format!(": must be one of {}", valid.join(", "))
                    }
                    _ => String::new(),
                }
            });
            Some(format!(
                "invalid argument \"{value}\" for \"{}\" flag{reason}",
                flag_names(cmd, &arg)
            ))
        }
        ErrorKind::UnknownArgument => {
            let arg = text(ContextKind::InvalidArg)?;
            if arg.starts_with("--") {
                Some(format!("unknown flag: {arg}"))
            } else if let Some(short) = arg.strip_prefix('-') {
                Some(format!("unknown shorthand flag: '{short}' in {arg}"))
            } else {
                Some(format!("unexpected argument '{arg}'"))
            }
        }
        _ => None,
    }
}

/// `-p, --parallel` for the flag clap names `--parallel <N>`, as pflag names a flag.
fn flag_names(cmd: &Command, shown: &str) -> String {
    let long = shown
        .split_whitespace()
        .next()
        .unwrap_or(shown)
        .trim_start_matches('-');
    match find_short(cmd, long) {
        Some(short) => format!("-{short}, --{long}"),
        None => format!("--{long}"),
    }
}

fn find_short(cmd: &Command, long: &str) -> Option<char> {
    cmd.get_arguments()
        .find(|a| a.get_long() == Some(long))
        .and_then(|a| a.get_short())
        .or_else(|| cmd.get_subcommands().find_map(|s| find_short(s, long)))
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches, Parser};

    use super::*;

    #[derive(Debug, Parser)]
    struct Probe {
        #[command(flatten)]
        global: GlobalArgs,
        #[arg(short, long, value_parser = clap::value_parser!(u16).range(1..))]
        parallel: Option<u16>,
        #[arg(long)]
        run_program: bool,
        #[arg(trailing_var_arg = false)]
        rest: Vec<String>,
    }

    fn parse(args: &[&str]) -> Result<Probe, String> {
        let cmd = cobra_syntax(Probe::command());
        let mut m = cmd
            .clone()
            .try_get_matches_from(std::iter::once("probe").chain(args.iter().copied()))
            .map_err(|e| cobra_message(&e, &cmd).unwrap_or_else(|| e.to_string()))?;
        Ok(Probe::from_arg_matches_mut(&mut m).unwrap())
    }

    #[test]
    fn booleans_take_an_explicit_value_and_repeats_keep_the_last() {
        let p = parse(&["--run-program=false", "--non-interactive=true", "-v=3"]).unwrap();
        assert!(!p.run_program);
        assert!(p.global.non_interactive);
        assert_eq!(p.global.verbose, Some(3));
        let p = parse(&["--run-program", "--color", "always", "--color=never"]).unwrap();
        assert!(p.run_program);
        assert_eq!(p.global.color.as_deref(), Some("never"));
        // A boolean never takes the next word as its value, as in cobra.
        let p = parse(&["--run-program", "true"]).unwrap();
        assert_eq!(p.rest, ["true"]);
    }

    #[test]
    fn flag_errors_read_as_cobra_writes_them() {
        let e = parse(&["-p", "1.1"]).unwrap_err();
        assert!(
            e.starts_with("invalid argument \"1.1\" for \"-p, --parallel\" flag"),
            "{e}"
        );
        assert_eq!(parse(&["--nope"]).unwrap_err(), "unknown flag: --nope");
    }

    #[test]
    fn a_bad_color_is_refused_in_pulumis_words() {
        let p = parse(&["--color", "rainbow"]).unwrap();
        assert_eq!(
            p.global.validate().unwrap_err(),
            "unsupported color option: 'rainbow'.  Supported values are: auto, always, never, raw"
        );
        assert!(parse(&["--color=raw"]).unwrap().global.validate().is_ok());
    }
}
