"""torch.nn.utils: gradient clipping, parameter vectors, rnn packing utilities and parametrizations."""

from engine.nn.clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                                 get_total_norm)
from engine.nn.convert_parameters import parameters_to_vector, vector_to_parameters
from engine.nn.utils import parametrize, rnn
from engine.nn.utils import parametrizations
from engine.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from engine.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "rnn", "parametrize", "parametrizations",
           "spectral_norm", "remove_spectral_norm", "weight_norm", "remove_weight_norm"]
