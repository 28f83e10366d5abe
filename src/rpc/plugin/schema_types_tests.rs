use serde_json::json;

use super::schema_types::resource_inputs;
use crate::engine::provider::input_types::{InputType, ObjectType};

#[test]
fn a_resources_inputs_follow_refs_to_enums_objects_and_pulumis_assets() {
    let schema = json!({
        "resources": {
            "pkg:index:Thing": {
                "inputProperties": {
                    "size": {"type": "integer"},
                    "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                    "names": {"type": "array", "items": {"type": "string"}},
                    "color": {"$ref": "#/types/pkg:index:Color"},
                    "spec": {"$ref": "#/types/pkg:index:Spec"},
                    "file": {"$ref": "pulumi.json#/Asset"},
                    "either": {"oneOf": [{"type": "string"}, {"type": "number"}]},
                    "other": {"$ref": "/other/v1.0.0/schema.json#/types/other:index:T"}
                },
                "requiredInputs": ["size"]
            }
        },
        "types": {
            "pkg:index:Color": {"type": "string", "enum": [{"value": "red"}]},
            "pkg:index:Spec": {
                "type": "object",
                "properties": {"deep": {"$ref": "#/types/pkg:index:Spec"}},
                "required": ["deep"]
            }
        }
    });
    let inputs = resource_inputs(&schema, "pkg:index:Thing").unwrap();
    let ty = |name: &str| inputs.property(name).unwrap().type_.clone();
    assert_eq!(inputs.token.as_deref(), Some("pkg:index:Thing"));
    assert!(inputs.property("size").unwrap().required);
    assert!(!inputs.property("tags").unwrap().required);
    assert_eq!(ty("size"), InputType::Integer);
    assert_eq!(ty("tags"), InputType::Map(Box::new(InputType::String)));
    assert_eq!(ty("names"), InputType::Array(Box::new(InputType::String)));
    assert_eq!(ty("color"), InputType::String);
    assert_eq!(ty("file"), InputType::Asset);
    assert_eq!(ty("other"), InputType::Any);
    assert_eq!(
        ty("either"),
        InputType::Union(vec![InputType::String, InputType::Number])
    );
    // A recursive object type is followed a few levels, then trusted as `any`.
    let mut spec = ty("spec");
    let mut levels = 0;
    while let InputType::Object(ObjectType { properties, .. }) = spec {
        spec = properties[0].type_.clone();
        levels += 1;
    }
    assert_eq!((spec, levels), (InputType::Any, 8));
    assert!(resource_inputs(&schema, "pkg:index:Missing").is_none());
}
