import AxiomPlugins

// Runs one plugin's code away from the host: see PluginScanner. Started by PluginHost, never by hand.
PluginScanner.main()
