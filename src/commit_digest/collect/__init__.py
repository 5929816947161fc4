"""Where commits come from: the GitHub REST API or a local git clone, behind one protocol."""
