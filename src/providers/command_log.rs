//! The command provider's `logging` option: which of a running command's streams are shown
//! line by line while it runs, as pulumi-command logs them (each line an info status message
//! of the resource: an ephemeral diagnostic here). What the command printed is kept in
//! `stdout`/`stderr` whatever the option says.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::input_fields::{FieldError, opt_str};
use crate::engine::{EngineEvent, EventSink, PropertyMap, Severity, Urn};

/// The option's values; `stdoutAndStderr` when it is not set.
const LOGGING: &[&str] = &["stdout", "stderr", "stdoutAndStderr", "none"];

/// Which streams are logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Logging {
    pub stdout: bool,
    pub stderr: bool,
}

impl Logging {
    /// The option's value (unset: `stdoutAndStderr`); an unknown value is refused with the
    /// values it may take.
    pub(crate) fn parse(value: Option<&str>) -> Result<Logging, String> {
        let (stdout, stderr) = match value {
            None | Some("stdoutAndStderr") => (true, true),
            Some("stdout") => (true, false),
            Some("stderr") => (false, true),
            Some("none") => (false, false),
            Some(other) => {
                return Err(format!(
                    "unknown value {other:?}; expected one of {}",
                    LOGGING.join(", ")
                ));
            }
        };
        Ok(Logging { stdout, stderr })
    }

    /// The option as the inputs set it.
    pub(crate) fn from_inputs(inputs: &PropertyMap) -> Result<Logging, FieldError> {
        Logging::parse(opt_str(inputs, "logging")?.as_deref())
            .map_err(|reason| FieldError::new("logging", reason))
    }
}

/// Where one command's lines go: the deployment's events, about the resource running it
/// (none for `command:local:run`).
#[derive(Clone, Debug)]
pub(crate) struct CommandLog {
    pub events: EventSink,
    pub urn: Option<Urn>,
}

impl CommandLog {
    /// Reads a stream of the command to its end and returns all of it; each line is logged
    /// as it arrives when `logged`.
    pub(crate) async fn pump(&self, pipe: Option<impl AsyncRead + Unpin>, logged: bool) -> Vec<u8> {
        let mut all = Vec::new();
        let Some(pipe) = pipe else {
            return all;
        };
        let mut reader = BufReader::new(pipe);
        let mut line = Vec::new();
        while let Ok(n) = reader.read_until(b'\n', &mut line).await {
            if n == 0 {
                break;
            }
            if logged {
                self.line(&line);
            }
            all.append(&mut line);
        }
        all
    }

    fn line(&self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        self.events.send(EngineEvent::Diagnostic {
            urn: self.urn.clone(),
            severity: Severity::Info,
            message: text.strip_suffix('\r').unwrap_or(text).to_string(),
            ephemeral: true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PropertyValue;

    fn logging(value: Option<&str>) -> Result<Logging, FieldError> {
        let mut inputs = PropertyMap::new();
        if let Some(v) = value {
            inputs.insert("logging".into(), PropertyValue::string(v));
        }
        Logging::from_inputs(&inputs)
    }

    #[test]
    fn each_value_picks_its_streams_and_both_by_default() {
        let both = Logging {
            stdout: true,
            stderr: true,
        };
        assert_eq!(logging(None).unwrap(), both);
        assert_eq!(logging(Some("stdoutAndStderr")).unwrap(), both);
        assert!(logging(Some("stdout")).unwrap().stdout);
        assert!(!logging(Some("stdout")).unwrap().stderr);
        assert!(logging(Some("stderr")).unwrap().stderr);
        let none = logging(Some("none")).unwrap();
        assert!(!none.stdout && !none.stderr);
        let bad = logging(Some("loud")).unwrap_err();
        assert_eq!(bad.field, "logging");
    }

    #[tokio::test]
    async fn lines_are_logged_as_they_come_and_all_bytes_kept() {
        let (events, mut rx) = EventSink::channel();
        let log = CommandLog { events, urn: None };
        let all = log.pump(Some(&b"one\r\ntwo\nthree"[..]), true).await;
        assert_eq!(all, b"one\r\ntwo\nthree");
        let mut lines = Vec::new();
        while let Ok(EngineEvent::Diagnostic {
            message, ephemeral, ..
        }) = rx.try_recv()
        {
            assert!(ephemeral);
            lines.push(message);
        }
        assert_eq!(lines, ["one", "two", "three"]);
        assert_eq!(log.pump(Some(&b"quiet\n"[..]), false).await, b"quiet\n");
        assert!(rx.try_recv().is_err(), "an unlogged stream sends nothing");
    }
}
