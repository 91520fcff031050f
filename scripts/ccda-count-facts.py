#!/usr/bin/python3
"""Counts the distinct facts of each entry type in C-CDA documents, independently of hreaderd's reader.

Written apart from `Sources/Records/CCDA` (and not calling it) from the C-CDA R2.1 templates, with the
Python standard library's ElementTree and its small XPath, so that the corpus test
(`Tests/RecordsTests/CCDA/CCDACorpusTests.swift`) can compare what an import produced with what the
document holds. Prints one JSON object a line: {"file": path, "counts": {"conditions": n, ...}}.

What it counts, per type (distinct by content: the same fact twice is one):
- conditions: problem observations (4.4) of the problem sections, not negated, by (problem, onset);
  plus encounter diagnoses (4.80), medication indications (4.19) and reactions (4.9) whose problem the list
  lacks, by problem.
- allergies: allergy observations (4.7) not negated and not "no known allergy", by (substance, onset).
- medications / immunizations: the top substance administrations (4.16 / 4.52), by (product, start, end, dose,
  refused).
- results / vital_signs: result (4.2) / vital sign (4.27) observations, by (code, time, value); results
  nested in procedures, and the top observations of functional and cognitive status sections, too.
- encounters / procedures: the entries' encounters (4.49) / procedures (4.14, 4.13, 4.12), by (code, time).

Usage: ccda-count-facts.py FILE_OR_FOLDER...
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

H = "{urn:hl7-org:v3}"
C = "2.16.840.1.113883.10.20.22"

# Section kinds by templateId root (C-CDA entries optional and required), else LOINC code.
SECTIONS = {
    "problems": ({C + ".2.5", C + ".2.5.1"}, "11450-4"),
    "allergies": ({C + ".2.6", C + ".2.6.1"}, "48765-2"),
    "medications": ({C + ".2.1", C + ".2.1.1"}, "10160-0"),
    "immunizations": ({C + ".2.2", C + ".2.2.1"}, "11369-6"),
    "results": ({C + ".2.3", C + ".2.3.1"}, "30954-2"),
    "vital_signs": ({C + ".2.4", C + ".2.4.1"}, "8716-3"),
    "encounters": ({C + ".2.22", C + ".2.22.1"}, "46240-8"),
    "procedures": ({C + ".2.7", C + ".2.7.1"}, "47519-4"),
    # Functional and cognitive status observations are results.
    "functional_status": ({C + ".2.14"}, "47420-5"),
}

NO_KNOWN_ALLERGY = {"160244002", "409137002", "428607008", "429625007", "716186003", "428197003"}


def templates(element):
    return {t.get("root") for t in element.findall(H + "templateId")}


def kind_of(section):
    roots = templates(section)
    for kind, (section_roots, _) in SECTIONS.items():
        if roots & section_roots:
            return kind
    code = section.find(H + "code")
    code = code.get("code") if code is not None else None
    for kind, (_, loinc) in SECTIONS.items():
        if code == loinc:
            return kind
    return None


def negated(element):
    return element.get("negationInd") == "true"


def concept(element):
    """A coded element as a key: system and code, else its original text or display name; None if nothing."""
    if element is None:
        return None
    code = element.get("code")
    if code:
        return (element.get("codeSystem") or "") + "|" + code
    original = element.find(H + "originalText")
    if original is not None:
        reference = original.find(H + "reference")
        if reference is not None and reference.get("value"):
            return "ref:" + reference.get("value")
        text = " ".join("".join(original.itertext()).split())
        if text:
            return "text:" + text
    for translation in element.findall(H + "translation"):
        if translation.get("code"):
            return (translation.get("codeSystem") or "") + "|" + translation.get("code")
    if element.get("displayName"):
        return "name:" + element.get("displayName")
    return None


def time(element):
    effective = element.find(H + "effectiveTime")
    if effective is None:
        return ""
    if effective.get("value"):
        return effective.get("value")
    for part in ("low", "center", "high"):
        node = effective.find(H + part)
        if node is not None and node.get("value"):
            return node.get("value")
    return ""


def end(element):
    high = element.find(H + "effectiveTime/" + H + "high")
    return high.get("value") or "" if high is not None else ""


def dose(element):
    quantity = element.find(H + "doseQuantity")
    return (quantity.get("value") or "") + " " + (quantity.get("unit") or "") if quantity is not None else ""


def value(element):
    node = element.find(H + "value")
    if node is None:
        return ""
    if node.get("value") is not None:
        return node.get("value") + " " + (node.get("unit") or "")
    return concept(node) or " ".join("".join(node.itertext()).split())


def with_template(root, tag, template_roots):
    """Descendants (and root) of a tag carrying one of the templates."""
    return [e for e in root.iter(H + tag) if templates(e) & template_roots]


def has_ancestor_tag(entry, element, tag):
    """Whether a `tag` element lies between the entry and the element."""
    parents = {child: parent for parent in entry.iter() for child in parent}
    node = parents.get(element)
    while node is not None and node is not entry:
        if node.tag == H + tag:
            return True
        node = parents.get(node)
    return False


def count(path):
    document = ET.parse(path).getroot()
    facts = {kind: set() for kind in
             ("conditions", "allergies", "medications", "immunizations", "results", "vital_signs", "encounters", "procedures")}
    nested_problems = set()
    for section in document.iter(H + "section"):
        kind = kind_of(section)
        if kind is None:
            continue
        for entry in section.findall(H + "entry"):
            if kind == "problems":
                for observation in with_template(entry, "observation", {C + ".4.4"}):
                    if negated(observation):
                        continue
                    problem = concept(observation.find(H + "value")) or concept(observation.find(H + "code"))
                    if problem:
                        facts["conditions"].add((problem, time(observation)))
            elif kind == "allergies":
                for observation in with_template(entry, "observation", {C + ".4.7"}):
                    value_node = observation.find(H + "value")
                    if negated(observation) or (value_node is not None and value_node.get("code") in NO_KNOWN_ALLERGY):
                        continue
                    substance = observation.find(".//" + H + "participant/" + H + "participantRole/" + H + "playingEntity/" + H + "code")
                    what = concept(substance) or concept(value_node)
                    if what:
                        facts["allergies"].add((what, time(observation)))
            elif kind in ("medications", "immunizations"):
                template = C + (".4.16" if kind == "medications" else ".4.52")
                for administration in with_template(entry, "substanceAdministration", {template}):
                    if has_ancestor_tag(entry, administration, "substanceAdministration"):
                        continue
                    if negated(administration) and kind == "medications":
                        continue
                    product = administration.find(H + "consumable/" + H + "manufacturedProduct/" + H + "manufacturedMaterial/" + H + "code")
                    what = concept(product)
                    if what is None:
                        text = administration.find(H + "text/" + H + "reference")
                        what = "ref:" + text.get("value") if text is not None and text.get("value") else None
                    if what:
                        facts[kind].add((what, time(administration), end(administration), dose(administration), negated(administration)))
                if kind == "medications":
                    # Indications (4.19) and reactions the medication caused (4.9): problems of their own.
                    for indication in with_template(entry, "observation", {C + ".4.19", C + ".4.9"}):
                        problem = concept(indication.find(H + "value"))
                        if problem and not negated(indication):
                            nested_problems.add(problem)
            elif kind == "functional_status":
                for observation in entry.iter(H + "observation"):
                    if has_ancestor_tag(entry, observation, "observation") or negated(observation):
                        continue
                    code = concept(observation.find(H + "code"))
                    if code or value(observation):
                        facts["results"].add((code, time(observation), value(observation)))
            elif kind in ("results", "vital_signs", "procedures"):
                template = {"results": C + ".4.2", "vital_signs": C + ".4.27", "procedures": C + ".4.2"}[kind]
                for observation in with_template(entry, "observation", {template}):
                    if negated(observation):
                        continue
                    code = concept(observation.find(H + "code"))
                    if code or value(observation):
                        facts["results" if kind == "procedures" else kind].add((code, time(observation), value(observation)))
                if kind == "procedures":
                    for statement in list(entry):
                        if statement.tag in (H + "procedure", H + "observation", H + "act") and \
                                templates(statement) & {C + ".4.14", C + ".4.13", C + ".4.12"} and not negated(statement):
                            code = concept(statement.find(H + "code"))
                            if code:
                                facts["procedures"].add((code, time(statement)))
            elif kind == "encounters":
                for encounter in entry.findall(H + "encounter"):
                    if negated(encounter):
                        continue
                    code = concept(encounter.find(H + "code"))
                    if code or time(encounter):
                        facts["encounters"].add((code, time(encounter)))
                    for diagnosis in with_template(encounter, "act", {C + ".4.80"}):
                        for observation in with_template(diagnosis, "observation", {C + ".4.4"}):
                            problem = concept(observation.find(H + "value"))
                            if problem and not negated(observation):
                                nested_problems.add(problem)
    listed = {problem for problem, _ in facts["conditions"]}
    counts = {kind: len(found) for kind, found in facts.items()}
    counts["conditions"] += len(nested_problems - listed)
    return counts


def main(arguments):
    paths = []
    for argument in arguments:
        if os.path.isdir(argument):
            for folder, _, names in sorted(os.walk(argument)):
                paths += [os.path.join(folder, name) for name in sorted(names) if name.lower().endswith((".xml", ".ccd", ".cda"))]
        else:
            paths.append(argument)
    for path in paths:
        try:
            result = {"file": path, "counts": count(path)}
        except ET.ParseError as error:
            result = {"file": path, "error": str(error)}
        print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
