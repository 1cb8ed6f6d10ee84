/// The Swift compiler that built this code, as far as the ladder below can tell. The host reads the same
/// value through `PluginExport.toolchain`: a plugin and a host built by one toolchain always agree, and
/// different releases differ.
let swiftToolchain: String = {
    #if compiler(>=7.0)
    return "swift-7.0+"
    #elseif compiler(>=6.4)
    return "swift-6.4+"
    #elseif compiler(>=6.3.3)
    return "swift-6.3.3+"
    #elseif compiler(>=6.3.2)
    return "swift-6.3.2"
    #elseif compiler(>=6.3.1)
    return "swift-6.3.1"
    #elseif compiler(>=6.3)
    return "swift-6.3.0"
    #elseif compiler(>=6.2)
    return "swift-6.2"
    #else
    return "swift-6.1-or-older"
    #endif
}()
