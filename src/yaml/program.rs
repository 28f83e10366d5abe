//! Loading a YAML program: the project's `Pulumi.yaml` (or `Main.yaml` in the `main:`
//! directory), parsed, built into an AST and analysed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::program::source::DeploymentInfo;
use crate::file_limits::{self, YAML_FILE};
use crate::project::local_plugins::parse_local_plugins;
use crate::project::{PROJECT_FILE, Project};

use super::analyze::analyze;
use super::ast::build;
use super::compiler::Compiler;
use super::component::Components;
use super::error::{SourceError, YamlError};
use super::evaluate::YamlProgram;
use super::node::{Node, parse_document};

impl YamlProgram {
    /// Parses and checks program text; `file` names it in errors, `project` namespaces bare
    /// config keys.
    pub fn parse(file: &str, text: &str, project: &str) -> Result<YamlProgram, SourceError> {
        YamlProgram::from_document(file, &parse_document(file, text)?, project)
    }

    /// Builds and checks the program of a parsed document.
    fn from_document(file: &str, doc: &Node, project: &str) -> Result<YamlProgram, SourceError> {
        let ast = build(file, doc, project)?;
        let analysis = analyze(&ast)?;
        Ok(YamlProgram {
            ast: Arc::new(ast),
            analysis: Arc::new(analysis),
            dir: PathBuf::from("."),
            root_dir: PathBuf::from("."),
            components: Arc::default(),
            local_plugins: Arc::default(),
            compiler: None,
        })
    }

    /// Loads the program of a `runtime: yaml` project: `Main.yaml` in the program directory
    /// when present, otherwise its `Pulumi.yaml`.
    pub fn load(project: &Project) -> Result<YamlProgram, YamlError> {
        let dir = project.program_dir();
        let main = dir.join("Main.yaml");
        let path = if main.is_file() {
            main
        } else {
            dir.join(PROJECT_FILE)
        };
        let text = file_limits::read_to_string(&path, YAML_FILE)?;
        let file = display_name(&project.dir, &path);
        // Parsed once for the program and its components: a program of a million resources
        // takes seconds and gigabytes to parse.
        let doc = parse_document(&file, &text)?;
        let mut program = YamlProgram::from_document(&file, &doc, &project.name)?;
        program.components = Arc::new(Components::load(&project.dir, &file, &doc)?);
        let mut local = project.local_plugins.clone();
        if path != dir.join(PROJECT_FILE) {
            // `Main.yaml`'s own `packages:` add to the project's.
            for p in parse_local_plugins(&file, &doc, &project.dir)? {
                if !local.iter().any(|l| l.name == p.name) {
                    local.push(p);
                }
            }
        }
        program.local_plugins = Arc::new(local);
        program.compiler = Compiler::from_options(&project.runtime.options, &dir)?;
        program.dir = dir;
        program.root_dir = project.dir.clone();
        Ok(program)
    }

    /// The program `compiler` prints for the run of `info`, with the components of the
    /// packages the project's own file declares (Pulumi YAML attaches the directory's).
    pub(super) async fn compiled(
        &self,
        compiler: &Compiler,
        info: &DeploymentInfo,
    ) -> Result<YamlProgram, YamlError> {
        let text = compiler.compile(info, &self.root_dir).await?;
        let file = compiler.file_name();
        let mut program = YamlProgram::parse(&file, &text, &info.project)?;
        program.components = self.components.clone();
        program.local_plugins = self.local_plugins.clone();
        program.dir = self.dir.clone();
        program.root_dir = self.root_dir.clone();
        Ok(program)
    }
}

/// The program file's path relative to the project directory, as messages show it.
fn display_name(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}
