//! Compiles our own pulumirpc .proto files and the console protocol with protox (no protoc
//! needed) into tonic clients and servers that use our codecs (`src/rpc/codec.rs`): the console
//! protocol's streams get the one with a larger encoding buffer.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let pulumi = [
        "pulumi/analyzer.proto",
        "pulumi/engine.proto",
        "pulumi/events.proto",
        "pulumi/language.proto",
        "pulumi/provider.proto",
        "pulumi/resource.proto",
    ];
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .codec_path("crate::rpc::codec::StrictCodec")
        .compile_fds(protox::compile(pulumi, ["proto"])?)?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .codec_path("crate::rpc::codec::StreamCodec")
        // Served events are encoded once and shared by every watcher.
        .bytes(".stepdeck.console.v1.Events.runs")
        .compile_fds(protox::compile(
            ["stepdeck/console/v1/console.proto"],
            ["proto"],
        )?)?;
    Ok(())
}
