//! Sets the linker flags a Node addon needs (undefined napi symbols on macOS).
fn main() {
    napi_build::setup();
}
