//! `preview`, `up`, `destroy` and `refresh` from the command line: the stack is opened once,
//! then the run goes to the console or to the plain and JSON displays.

use std::path::Path;

use anyhow::Result;
use stepdeck::engine::Operation;

use super::args::DeployArgs;
use super::deploy;
use super::display::Display;

pub(super) async fn run(
    dir: &Path,
    backend: Option<&str>,
    operation: Operation,
    args: DeployArgs,
) -> Result<()> {
    let opened = deploy::open(dir, backend, operation, &args)?;
    let serving = super::serve::start(&args.serve).await?;
    if opened.display == Display::Console {
        return super::console::run(&opened.ws, &opened.stack, operation, &args, serving).await;
    }
    deploy::run(opened, operation, args, serving).await
}
