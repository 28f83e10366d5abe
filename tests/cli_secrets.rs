//! A secret a provider rejects is never printed in plain text, in any display.

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;

use cli_support::*;

const PROGRAM: &str = r#"
config:
  tok:
    type: string
resources:
  literal:
    type: sim:index:Resource
    properties:
      latencyMs:
        fn::secret: hunter2-literal
  fromConfig:
    type: sim:index:Resource
    properties:
      latencyMs: ${tok}
"#;

#[test]
fn a_secret_failing_a_providers_check_is_masked_everywhere() {
    let env = Env::with_passphrase(PROGRAM);
    env.set_secret("tok", "hunter2-config");
    for args in [
        &["preview", "--stack", "dev", "--non-interactive"][..],
        &["preview", "--stack", "dev", "--json"],
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
        &["up", "--stack", "dev", "--yes", "--json"],
    ] {
        let out = env.run(args);
        let (o, e) = (stdout(&out), stderr(&out));
        assert!(!out.status.success(), "{args:?}: the check must fail");
        assert!(
            !o.contains("hunter2") && !e.contains("hunter2"),
            "{args:?} printed a secret:\n{o}\n{e}"
        );
        assert!(
            o.contains("got \\\"[secret]\\\"")
                || o.contains("got \"[secret]\"")
                || e.contains("[secret]"),
            "{args:?}: the failure is still reported:\n{o}\n{e}"
        );
    }
}
