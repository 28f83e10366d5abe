//! Pulumi's `about/{nodejs,python}` (`TestAboutNodeJS`, `TestAboutPython`): `about` run in the
//! program's directory names the language plugin with a 3.x version and the program's
//! dependencies (and for Node.js its package manager and that manager's version). Pulumi's
//! Python program depends on pulumi-kubernetes, installed from the network; ours on
//! pulumi-random, installed with the SDKs.

use regex::Regex;

use super::harness::ProgramTest;

/// `about`'s text, which must succeed.
fn about(t: &ProgramTest) -> String {
    t.env.ok(&["about"])
}

#[test]
fn js_about() {
    let t = ProgramTest::new("js_about");
    let text = about(&t);
    t.env.ok(&["stack", "rm", "--yes"]);
    assert!(text.contains("@types/node"), "{text}");
    assert!(
        Regex::new(r"language\W+nodejs\W+3\.")
            .unwrap()
            .is_match(&text),
        "{text}"
    );
    assert!(text.contains("packagemanager='npm'"), "{text}");
    assert!(
        Regex::new(r"packagemanagerVersion='\d+\.\d+.\d+'")
            .unwrap()
            .is_match(&text),
        "{text}"
    );
}

#[test]
fn py_about() {
    let t = ProgramTest::new("py_about");
    let text = about(&t);
    assert!(text.contains("pulumi-random"), "{text}");
    assert!(
        Regex::new(r"language\W+python\W+3\.")
            .unwrap()
            .is_match(&text),
        "{text}"
    );
}
