"""The phone ⇄ server sheet protocol: message shapes (`protocol`, pure) and the JSON routes (`routes`)."""
