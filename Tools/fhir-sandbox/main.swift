// Placeholder: the fhir-sandbox command is being written.
print("fhir-sandbox: not built yet")
