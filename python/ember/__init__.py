from ember._activate import activate, deactivate
