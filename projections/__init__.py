"""Pure views of a scene: what each viewer may see, and the replay with its explanations."""
