//! What the fuzz targets and the seed writer (`examples/seeds.rs`) share: the structured
//! inputs of the targets that have seeds, and their encoding as the bytes `arbitrary` decodes
//! them from ([`seed`]).

pub mod c_api;
pub mod c_api_storage;
pub mod evaluate;
pub mod load_history;
pub mod seed;
pub mod shared;
