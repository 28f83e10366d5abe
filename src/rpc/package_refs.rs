//! Packages a program registered with `RegisterPackage`, by the reference handed back; a
//! registration, read, invoke or call naming one (`packageRef`) uses that package's version
//! when it names none itself, as Pulumi's monitor resolves package references. Parameterized
//! packages (a provider serving another package's schema) need the provider's `Parameterize`
//! and are refused with a message naming the field; `SupportsFeature` says so too.

use std::sync::Mutex;

use tonic::Status;

use super::pulumirpc::RegisterPackageRequest;
use crate::engine::goal::package_of;
use crate::engine::registration_check::check_version;

/// A package as registered: its name and version (empty: the default plugin's).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Package {
    name: String,
    version: String,
    download_url: String,
}

/// The packages registered in this run, in registration order, with their references.
#[derive(Default)]
pub struct PackageRefs {
    packages: Mutex<Vec<(String, Package)>>,
}

impl PackageRefs {
    /// Registers a package and returns its reference; the same package registered again gets
    /// the same reference.
    pub fn register(&self, req: RegisterPackageRequest) -> Result<String, Status> {
        let field = |f: &str, why: String| {
            Status::invalid_argument(format!("RegisterPackageRequest.{f}: {why}"))
        };
        if req.name.is_empty() {
            return Err(field("name", "must not be empty".into()));
        }
        if !req.version.is_empty() {
            check_version("version", &req.version)
                .map_err(|f| Status::invalid_argument(format!("RegisterPackageRequest.{f}")))?;
        }
        for (name, given) in [
            ("parameterization", &req.parameterization),
            ("extension", &req.extension),
        ] {
            if let Some(p) = given {
                return Err(Status::failed_precondition(format!(
                    "RegisterPackageRequest.{name}: stepdeck does not run parameterized packages \
                     (package {:?} {} on provider {:?})",
                    p.name, p.version, req.name
                )));
            }
        }
        let package = Package {
            name: req.name,
            version: req.version,
            download_url: req.download_url,
        };
        let mut packages = self.packages.lock().expect("package refs lock");
        if let Some((reference, _)) = packages.iter().find(|(_, p)| *p == package) {
            return Ok(reference.clone());
        }
        let reference = uuid::Uuid::new_v4().to_string();
        packages.push((reference.clone(), package));
        Ok(reference)
    }

    /// Applies `reference` (a request's `packageRef`, empty for none) to a request for `token`:
    /// the package must be registered and be the token's, and its version is used when
    /// `version` is empty. `message` names the request in errors.
    pub fn apply(
        &self,
        message: &str,
        reference: &str,
        token: &str,
        version: &mut String,
    ) -> Result<(), Status> {
        if reference.is_empty() {
            return Ok(());
        }
        let packages = self.packages.lock().expect("package refs lock");
        let Some((_, package)) = packages.iter().find(|(r, _)| r == reference) else {
            return Err(Status::invalid_argument(format!(
                "{message}.packageRef: {reference:?} was not registered (RegisterPackage)"
            )));
        };
        if package_of(token) != package.name {
            return Err(Status::invalid_argument(format!(
                "{message}.packageRef: {reference:?} is package {:?}, not {token:?}'s",
                package.name
            )));
        }
        if version.is_empty() {
            version.clone_from(&package.version);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::pulumirpc::Parameterization;

    fn random(version: &str) -> RegisterPackageRequest {
        RegisterPackageRequest {
            name: "random".into(),
            version: version.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_package_registered_twice_has_one_reference_whose_version_applies() {
        let refs = PackageRefs::default();
        let a = refs.register(random("4.16.0")).unwrap();
        assert_eq!(refs.register(random("4.16.0")).unwrap(), a);
        let b = refs.register(random("4.17.0")).unwrap();
        assert_ne!(a, b);
        let mut version = String::new();
        refs.apply("R", &b, "random:index/randomPet:RandomPet", &mut version)
            .unwrap();
        assert_eq!(version, "4.17.0");
        let mut own = "4.1.0".to_string();
        refs.apply("R", &b, "random:index/randomPet:RandomPet", &mut own)
            .unwrap();
        assert_eq!(own, "4.1.0", "the request's own version wins");
    }

    #[test]
    fn unknown_foreign_and_parameterized_packages_are_refused_by_field() {
        let refs = PackageRefs::default();
        let mut v = String::new();
        let unknown = refs
            .apply("R", "nope", "random:index:X", &mut v)
            .unwrap_err();
        assert!(unknown.message().starts_with("R.packageRef: \"nope\""));
        let r = refs.register(random("")).unwrap();
        let foreign = refs
            .apply("R", &r, "command:local:Command", &mut v)
            .unwrap_err();
        assert!(foreign.message().contains("is package \"random\""));
        let bad = refs.register(random("four")).unwrap_err();
        assert!(bad.message().starts_with("RegisterPackageRequest.version"));
        let parameterized = refs
            .register(RegisterPackageRequest {
                parameterization: Some(Parameterization {
                    name: "mine".into(),
                    version: "1.0.0".into(),
                    value: vec![1],
                }),
                ..random("4.16.0")
            })
            .unwrap_err();
        assert_eq!(parameterized.code(), tonic::Code::FailedPrecondition);
        assert!(
            parameterized
                .message()
                .starts_with("RegisterPackageRequest.parameterization: stepdeck does not run")
        );
        assert!(refs.register(RegisterPackageRequest::default()).is_err());
    }
}
