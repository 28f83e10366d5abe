//! Projects (`Pulumi.yaml`), stack settings (`Pulumi.<stack>.yaml`) and stack configuration.
