"""torch.func: composable function transforms (grad, vmap, jacrev, jacfwd, hessian, vjp, jvp, functional_call)."""

from engine.func.eager_transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from engine.func.functional_call import functional_call, stack_module_state
from engine.func.vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "stack_module_state", "vjp", "vmap"]
