//! The two protocol eras: legacy (`initialize`, 2024-11-05 … 2025-11-25) and modern
//! (2026-07-28: `server/discover`, per-request `_meta`, `InputRequiredResult`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub const MODERN_VERSION: &str = "2026-07-28";
pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Which lifecycle a client used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Era {
    Legacy,
    Modern,
}

impl Era {
    pub const ALL: [Era; 2] = [Era::Legacy, Era::Modern];

    /// The era a protocol version belongs to.
    pub fn of_version(version: &str) -> Era {
        if version >= MODERN_VERSION {
            Era::Modern
        } else {
            Era::Legacy
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which eras the server accepts. `Dual` serves whichever the client picks; the others refuse the
/// other era so that a client's fallback can be probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EraPolicy {
    Legacy,
    Modern,
    #[default]
    Dual,
}

impl EraPolicy {
    pub fn is_dual(&self) -> bool {
        *self == EraPolicy::Dual
    }

    /// How a server with this policy is named beside a transport ("legacy-only server").
    pub fn server_label(self) -> &'static str {
        match self {
            EraPolicy::Legacy => "legacy-only server",
            EraPolicy::Modern => "2026-07-28-only server",
            EraPolicy::Dual => "dual server",
        }
    }

    /// The word in file names and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            EraPolicy::Legacy => "legacy",
            EraPolicy::Modern => "modern",
            EraPolicy::Dual => "dual",
        }
    }

    pub fn allows(self, era: Era) -> bool {
        matches!((self, era), (EraPolicy::Dual, _) | (EraPolicy::Legacy, Era::Legacy) | (EraPolicy::Modern, Era::Modern))
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown era {0:?}: expected legacy or modern (or dual, where a server serves both)")]
pub struct UnknownEra(String);

impl FromStr for Era {
    type Err = UnknownEra;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Era::ALL.into_iter().find(|e| e.as_str() == s).ok_or_else(|| UnknownEra(s.to_string()))
    }
}

impl FromStr for EraPolicy {
    type Err = UnknownEra;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "legacy" => Ok(EraPolicy::Legacy),
            "modern" => Ok(EraPolicy::Modern),
            "dual" => Ok(EraPolicy::Dual),
            other => Err(UnknownEra(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eras_parse_by_name() {
        assert_eq!("legacy".parse::<Era>().unwrap(), Era::Legacy);
        assert_eq!("modern".parse::<Era>().unwrap(), Era::Modern);
        assert!("dual".parse::<Era>().is_err());
        assert_eq!("dual".parse::<EraPolicy>().unwrap(), EraPolicy::Dual);
    }

    #[test]
    fn versions_map_to_eras() {
        for v in LEGACY_VERSIONS {
            assert_eq!(Era::of_version(v), Era::Legacy);
        }
        assert_eq!(Era::of_version("2026-07-28"), Era::Modern);
        assert_eq!(Era::of_version("2099-01-01"), Era::Modern);
    }

    #[test]
    fn policies_refuse_the_other_era() {
        assert!(EraPolicy::Dual.allows(Era::Modern) && EraPolicy::Dual.allows(Era::Legacy));
        assert!(!EraPolicy::Legacy.allows(Era::Modern));
        assert!(!EraPolicy::Modern.allows(Era::Legacy));
        assert!("sideways".parse::<EraPolicy>().is_err());
    }
}
