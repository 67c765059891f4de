//! What the server serves and the names judges look for: the surface, the variants, the tools and
//! views of each variant, the skills, what a person does in each interactive run.

pub mod apps;
pub mod edge_names;
pub mod events;
pub mod host_tools;
pub mod interactive;
pub mod long_calls;
pub mod skills;
pub mod stateless;
pub mod surface;
pub mod tasks;
pub mod variant;
