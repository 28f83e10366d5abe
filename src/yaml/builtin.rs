//! Pulumi YAML's built-in functions by name (case-insensitive); a leaf the syntax tree names
//! them by. Parsing a call's shape is `builtin_call`.

/// A built-in function that takes its arguments as expressions and computes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Join,
    Split,
    Select,
    Length,
    ToJson,
    ToBase64,
    FromBase64,
    ReadFile,
    FileBase64,
    FileBase64Sha256,
    Sha1,
    Secret,
    Unsecret,
    SingleOrNone,
    PulumiResourceName,
    PulumiResourceType,
    StringAsset,
    FileAsset,
    RemoteAsset,
    FileArchive,
    RemoteArchive,
}

impl Builtin {
    /// The name as Pulumi YAML spells it, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Join => "fn::join",
            Builtin::Split => "fn::split",
            Builtin::Select => "fn::select",
            Builtin::Length => "fn::length",
            Builtin::ToJson => "fn::toJSON",
            Builtin::ToBase64 => "fn::toBase64",
            Builtin::FromBase64 => "fn::fromBase64",
            Builtin::ReadFile => "fn::readFile",
            Builtin::FileBase64 => "fn::filebase64",
            Builtin::FileBase64Sha256 => "fn::filebase64sha256",
            Builtin::Sha1 => "fn::sha1",
            Builtin::Secret => "fn::secret",
            Builtin::Unsecret => "fn::unsecret",
            Builtin::SingleOrNone => "fn::singleOrNone",
            Builtin::PulumiResourceName => "fn::pulumiResourceName",
            Builtin::PulumiResourceType => "fn::pulumiResourceType",
            Builtin::StringAsset => "fn::stringAsset",
            Builtin::FileAsset => "fn::fileAsset",
            Builtin::RemoteAsset => "fn::remoteAsset",
            Builtin::FileArchive => "fn::fileArchive",
            Builtin::RemoteArchive => "fn::remoteArchive",
        }
    }

    const ALL: [Builtin; 21] = [
        Builtin::Join,
        Builtin::Split,
        Builtin::Select,
        Builtin::Length,
        Builtin::ToJson,
        Builtin::ToBase64,
        Builtin::FromBase64,
        Builtin::ReadFile,
        Builtin::FileBase64,
        Builtin::FileBase64Sha256,
        Builtin::Sha1,
        Builtin::Secret,
        Builtin::Unsecret,
        Builtin::SingleOrNone,
        Builtin::PulumiResourceName,
        Builtin::PulumiResourceType,
        Builtin::StringAsset,
        Builtin::FileAsset,
        Builtin::RemoteAsset,
        Builtin::FileArchive,
        Builtin::RemoteArchive,
    ];

    /// The function a lowercased `fn::` key names.
    pub(super) fn lookup(lower: &str) -> Option<Builtin> {
        Builtin::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(lower))
    }

    /// Whether the function takes a two-valued list (`[delimiter, items]`, `[index, list]`).
    pub(super) fn takes_pair(self) -> bool {
        matches!(self, Builtin::Join | Builtin::Split | Builtin::Select)
    }

    /// Whether the value is an asset or archive (what `fn::assetArchive` accepts).
    pub fn is_asset_or_archive(self) -> bool {
        matches!(
            self,
            Builtin::StringAsset
                | Builtin::FileAsset
                | Builtin::RemoteAsset
                | Builtin::FileArchive
                | Builtin::RemoteArchive
        )
    }
}
