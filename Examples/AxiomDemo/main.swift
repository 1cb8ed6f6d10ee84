import Foundation

// The demo re-executes itself to show a real crash being captured: the child installs the reporter and
// crashes; the parent finds, symbolicates and logs the report.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == CrashScene.childFlag {
    CrashScene.crashAsChild(reportDirectory: CommandLine.arguments[2])
}

await Demo().run()
