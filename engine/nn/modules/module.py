"""torch.nn.modules.module: Module and the hooks every module's call runs."""

from engine.nn import Module, register_module_forward_hook, register_module_forward_pre_hook

__all__ = ["Module", "register_module_forward_hook", "register_module_forward_pre_hook"]
