// `import Axiom` brings the whole framework: the core's identities, handlers and pipeline come with the
// runtime built on them, so an application needs one import. A library that only identifies and decides
// errors can depend on the `AxiomCore` product alone.
@_exported import AxiomCore
