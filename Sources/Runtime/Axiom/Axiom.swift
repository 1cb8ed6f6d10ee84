// `import Axiom` brings the whole framework: the core's identities, handlers and pipeline, and what a person is
// shown of an error, come with the runtime built on them, so an application needs one import. A library that only
// identifies and decides errors can depend on the `AxiomCore` product alone; one that presents them, on
// `AxiomPresentation`.
@_exported import AxiomCore
@_exported import AxiomPresentation
