"""The book's literate-programming tools: tangling chapters into the package, stage snapshots."""
