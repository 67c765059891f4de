//! The ground truth end to end: the self-test and the reference-client matrix.

use serde_json::Value;

use super::probe_cmd;

#[test]
fn self_test_proves_every_probe_over_both_transports_and_eras() {
    let output = probe_cmd().args(["self-test", "--format", "json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).expect("self-test prints JSON");
    assert_eq!(report["mismatches"], Value::Array(vec![]), "{}", serde_json::to_string_pretty(&report["mismatches"]).unwrap());
    assert!(output.status.success());
    assert!(report["probes_proven"].as_u64().unwrap() >= 30, "{}", report["probes_proven"]);
    let columns = report["matrix"]["columns"].as_array().unwrap();
    let seen: Vec<(String, String)> = columns.iter().map(|c| (c["transport"].as_str().unwrap().into(), c["era"].as_str().unwrap().into())).collect();
    for transport in ["stdio", "http"] {
        for era in ["legacy", "modern"] {
            assert!(seen.contains(&(transport.into(), era.into())), "missing column {transport} {era}");
        }
    }
    // Every applicable cell: yes for the full client, and an ablated outcome that is not yes.
    for row in report["matrix"]["rows"].as_array().unwrap() {
        for cell in row["cells"].as_array().unwrap() {
            for ablated in cell["ablated"].as_array().into_iter().flatten() {
                assert_eq!(cell["outcome"], "yes", "{}", row["probe"]);
                assert_ne!(ablated["outcome"], "yes", "{} under {}", row["probe"], ablated["ablation"]);
            }
        }
    }
}

#[test]
fn probe_without_a_client_prints_the_reference_matrix() {
    let output = probe_cmd().args(["probe", "--transport", "stdio", "--format", "json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let matrix: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(matrix["columns"].as_array().unwrap().len(), 2);
    let form = matrix["rows"].as_array().unwrap().iter().find(|r| r["probe"] == "elicitation.form").unwrap();
    for cell in form["cells"].as_array().unwrap() {
        assert_eq!(cell["outcome"], "yes");
        assert_eq!(cell["declared"], "declared");
    }
}
