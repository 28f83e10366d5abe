//! Where a provider's plugin is downloaded from (the `pluginDownloadURL` resource option).
//! stepdeck downloads nothing, but records the URL as Pulumi's engine does, under the provider
//! resource's `__internal` inputs, and gives a default provider of another URL its own name.

use crate::engine::model::property::{PropertyMap, PropertyValue};
use crate::engine::provider::parameterization::INTERNAL_KEY;

/// The key of the URL inside `__internal`.
const DOWNLOAD_URL_KEY: &str = "pluginDownloadURL";

/// Records `url` in a provider resource's `__internal` inputs (Pulumi's `SetProviderURL`),
/// keeping what else is there.
pub fn set_download_url(inputs: &mut PropertyMap, url: &str) {
    let internal = inputs.entry_or_insert_with(INTERNAL_KEY.to_string(), || {
        PropertyValue::Object(PropertyMap::new())
    });
    if !matches!(internal, PropertyValue::Object(_)) {
        *internal = PropertyValue::Object(PropertyMap::new());
    }
    if let PropertyValue::Object(m) = internal {
        m.insert(DOWNLOAD_URL_KEY.to_string(), PropertyValue::string(url));
    }
}

/// A URL made into the name part Pulumi appends to a default provider's name
/// (`tokens.IntoQName`): empty segments dropped, each byte outside `[A-Za-z0-9_.-]` an `_`.
pub fn qualified_name(url: &str) -> String {
    let segments: Vec<String> = url
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"_.-".contains(&b) {
                        char::from(b)
                    } else {
                        '_'
                    }
                })
                .collect()
        })
        .collect();
    if segments.is_empty() {
        "_".to_string()
    } else {
        segments.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_goes_under_internal_beside_what_is_there() {
        let mut inputs = PropertyMap::new();
        inputs.insert("region".into(), PropertyValue::string("north"));
        let mut internal = PropertyMap::new();
        internal.insert("name".into(), PropertyValue::string("base"));
        inputs.insert(INTERNAL_KEY.into(), PropertyValue::Object(internal));
        set_download_url(&mut inputs, "get.example.test");
        let PropertyValue::Object(internal) = &inputs[INTERNAL_KEY] else {
            panic!("__internal is an object: {inputs:?}");
        };
        assert_eq!(internal["name"], PropertyValue::string("base"));
        assert_eq!(
            internal["pluginDownloadURL"],
            PropertyValue::string("get.example.test")
        );
        assert_eq!(inputs["region"], PropertyValue::string("north"));
    }

    #[test]
    fn a_url_becomes_a_qualified_name_as_pulumi_makes_it() {
        assert_eq!(qualified_name("get.example.test"), "get.example.test");
        assert_eq!(
            qualified_name("https://get.pulumi.test/providers/"),
            "https_/get.pulumi.test/providers"
        );
        assert_eq!(qualified_name("a b/c~d"), "a_b/c_d");
        assert_eq!(qualified_name("//"), "_");
    }
}
