"""torch.optim: optimizers that update leaf parameters in place, and their learning-rate schedulers."""

from engine.optim.optimizer import Optimizer, zero_grad_in_place  # noqa: F401 - used by engine.nn
from engine.optim.adadelta import Adadelta
from engine.optim.adagrad import Adagrad
from engine.optim.adam import Adam, AdamW
from engine.optim.adamax import Adamax
from engine.optim.asgd import ASGD
from engine.optim.lbfgs import LBFGS
from engine.optim.nadam import NAdam
from engine.optim.radam import RAdam
from engine.optim.rmsprop import RMSprop
from engine.optim.rprop import Rprop
from engine.optim.sgd import SGD
from engine.optim.sparse_adam import SparseAdam
from engine.optim import lr_scheduler

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "lr_scheduler", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam"]
