//! Packages a program registered with `RegisterPackage`, by the reference handed back; a
//! registration, read, invoke or call naming one (`packageRef`) uses that package's version
//! when it names none itself, as Pulumi's monitor resolves package references. A parameterized
//! package (a base plugin serving another package after `Parameterize`) is kept with its
//! reference: requests naming it are for that package at its version, and the engine's monitor
//! is given the package so its default provider parameterizes the base plugin. Extension
//! packages are refused with a message naming the field.

use std::sync::Mutex;

use tonic::Status;

use crate::engine::model::goal::package_of;
use crate::engine::model::resource::provider_type_package;
use crate::engine::program::registration_check::check_version;
use crate::engine::provider::parameterization::{Parameterization, ParameterizedPackage};
use crate::rpc::pulumirpc::RegisterPackageRequest;

/// A package as registered: its name and version (empty: the default plugin's), and what
/// parameterizes the plugin when it serves another package.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Package {
    name: String,
    version: String,
    download_url: String,
    parameterization: Option<Parameterization>,
}

impl Package {
    /// The package requests naming this reference are for, and its version.
    fn served(&self) -> (&str, &str) {
        match &self.parameterization {
            Some(p) => (&p.name, &p.version),
            None => (&self.name, &self.version),
        }
    }

    /// The package for the engine's monitor, when it is parameterized.
    fn parameterized(&self) -> Option<ParameterizedPackage> {
        let p = self.parameterization.clone()?;
        Some(ParameterizedPackage {
            base_name: self.name.clone(),
            base_version: (!self.version.is_empty()).then(|| self.version.clone()),
            download_url: self.download_url.clone(),
            parameterization: p,
        })
    }
}

/// A registration's answer: the reference, and the parameterized package it names, if any.
#[derive(Debug)]
pub struct RegisteredPackage {
    pub reference: String,
    pub parameterized: Option<ParameterizedPackage>,
}

/// The packages registered in this run, in registration order, with their references.
#[derive(Default)]
pub struct PackageRefs {
    packages: Mutex<Vec<(String, Package)>>,
}

impl PackageRefs {
    /// Registers a package and returns its reference; the same package registered again gets
    /// the same reference.
    pub fn register(&self, req: RegisterPackageRequest) -> Result<RegisteredPackage, Status> {
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
        if let Some(p) = &req.extension {
            return Err(Status::failed_precondition(format!(
                "RegisterPackageRequest.extension: stepdeck does not run extension packages \
                 (package {:?} {} on provider {:?})",
                p.name, p.version, req.name
            )));
        }
        let parameterization = match req.parameterization {
            None => None,
            Some(p) => {
                if p.name.is_empty() {
                    return Err(field("parameterization.name", "must not be empty".into()));
                }
                check_version("version", &p.version).map_err(|f| {
                    Status::invalid_argument(format!("RegisterPackageRequest.parameterization.{f}"))
                })?;
                Some(Parameterization {
                    name: p.name,
                    version: p.version,
                    value: p.value,
                })
            }
        };
        let package = Package {
            name: req.name,
            version: req.version,
            download_url: req.download_url,
            parameterization,
        };
        let parameterized = package.parameterized();
        let mut packages = self.packages.lock().expect("package refs lock");
        let reference = match packages.iter().find(|(_, p)| *p == package) {
            Some((reference, _)) => reference.clone(),
            None => {
                let reference = uuid::Uuid::new_v4().to_string();
                packages.push((reference.clone(), package));
                reference
            }
        };
        Ok(RegisteredPackage {
            reference,
            parameterized,
        })
    }

    /// Applies `reference` (a request's `packageRef`, empty for none) to a request for `token`:
    /// the package must be registered and be the token's, and its version is used when
    /// `version` is empty; a parameterized package's version is always used (the reference
    /// names the whole package, as in Pulumi). A provider resource's token
    /// (`pulumi:providers:<package>`) is its package's. Answers the parameterized package the
    /// reference names, whose inputs an explicit provider of it takes. `message` names the
    /// request in errors.
    pub fn apply(
        &self,
        message: &str,
        reference: &str,
        token: &str,
        version: &mut String,
    ) -> Result<Option<ParameterizedPackage>, Status> {
        if reference.is_empty() {
            return Ok(None);
        }
        let packages = self.packages.lock().expect("package refs lock");
        let Some((_, package)) = packages.iter().find(|(r, _)| r == reference) else {
            return Err(Status::invalid_argument(format!(
                "{message}.packageRef: {reference:?} was not registered (RegisterPackage)"
            )));
        };
        let (name, served) = package.served();
        if provider_type_package(token).unwrap_or(package_of(token)) != name {
            return Err(Status::invalid_argument(format!(
                "{message}.packageRef: {reference:?} is package {name:?}, not {token:?}'s"
            )));
        }
        if version.is_empty() || package.parameterization.is_some() {
            *version = served.to_string();
        }
        Ok(package.parameterized())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::pulumirpc::Parameterization as PbParameterization;

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
        let a = refs.register(random("4.16.0")).unwrap().reference;
        assert_eq!(refs.register(random("4.16.0")).unwrap().reference, a);
        let b = refs.register(random("4.17.0")).unwrap().reference;
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
    fn unknown_foreign_and_invalid_packages_are_refused_by_field() {
        let refs = PackageRefs::default();
        let mut v = String::new();
        let unknown = refs
            .apply("R", "nope", "random:index:X", &mut v)
            .unwrap_err();
        assert!(unknown.message().starts_with("R.packageRef: \"nope\""));
        let r = refs.register(random("")).unwrap().reference;
        let foreign = refs
            .apply("R", &r, "command:local:Command", &mut v)
            .unwrap_err();
        assert!(foreign.message().contains("is package \"random\""));
        let bad = refs.register(random("four")).unwrap_err();
        assert!(bad.message().starts_with("RegisterPackageRequest.version"));
        let unnamed = refs
            .register(parameterized("", "1.0.0", "4.16.0"))
            .unwrap_err();
        assert_eq!(
            unnamed.message(),
            "RegisterPackageRequest.parameterization.name: must not be empty"
        );
        let unversioned = refs
            .register(parameterized("mine", "one", "4.16.0"))
            .unwrap_err();
        assert!(
            unversioned
                .message()
                .starts_with("RegisterPackageRequest.parameterization.version"),
            "{unversioned:?}"
        );
        let extension = refs
            .register(RegisterPackageRequest {
                extension: parameterized("mine", "1.0.0", "").parameterization,
                ..random("4.16.0")
            })
            .unwrap_err();
        assert_eq!(extension.code(), tonic::Code::FailedPrecondition);
        assert!(refs.register(RegisterPackageRequest::default()).is_err());
    }

    fn parameterized(name: &str, version: &str, base: &str) -> RegisterPackageRequest {
        RegisterPackageRequest {
            parameterization: Some(PbParameterization {
                name: name.into(),
                version: version.into(),
                value: vec![1, 2],
            }),
            ..random(base)
        }
    }

    #[test]
    fn a_parameterized_package_is_its_own_package_at_its_version() {
        let refs = PackageRefs::default();
        let registered = refs
            .register(parameterized("mine", "2.0.0", "4.16.0"))
            .unwrap();
        let package = registered.parameterized.expect("parameterized");
        assert_eq!(package.base_name, "random");
        assert_eq!(package.base_version.as_deref(), Some("4.16.0"));
        assert_eq!(package.parameterization.name, "mine");
        assert_eq!(package.parameterization.value, [1, 2]);
        let r = registered.reference;
        let mut version = "9.9.9".to_string();
        refs.apply("R", &r, "mine:index:Thing", &mut version)
            .unwrap();
        assert_eq!(version, "2.0.0", "the package's version, not the request's");
        let explicit = refs
            .apply("R", &r, "pulumi:providers:mine", &mut version)
            .unwrap()
            .expect("an explicit provider of the package gets its inputs");
        assert_eq!(explicit.base_name, "random");
        let base = refs
            .apply("R", &r, "random:index/randomPet:RandomPet", &mut version)
            .unwrap_err();
        assert!(base.message().contains("is package \"mine\""), "{base:?}");
        let again = refs
            .register(parameterized("mine", "2.0.0", "4.16.0"))
            .unwrap();
        assert_eq!(again.reference, r);
    }
}
