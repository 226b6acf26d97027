mod cli;
mod commands;
mod confinement;
mod index;
mod support;
mod tools;
mod workspace;
