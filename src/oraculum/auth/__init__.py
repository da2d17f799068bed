"""Auth: the signed-in seed profiles that every job's runtime profile is cloned from."""
