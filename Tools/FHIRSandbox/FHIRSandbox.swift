// Placeholder: the FHIR sandbox is being written (see Package.swift).
public enum FHIRSandboxPlaceholder {}
