//! Compiles our own pulumirpc .proto files and the console protocol with protox (no protoc
//! needed) into tonic clients and servers that use our codec (`src/rpc/codec.rs`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let files = [
        "pulumi/engine.proto",
        "pulumi/provider.proto",
        "pulumi/resource.proto",
        "stepdeck/console/v1/console.proto",
    ];
    let fds = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .codec_path("crate::rpc::codec::StrictCodec")
        // Served events are encoded once and shared by every watcher.
        .bytes(".stepdeck.console.v1.Events.events")
        .compile_fds(fds)?;
    Ok(())
}
