"""torch.distributions: parameterised probability distributions with PyTorch's sampling, log_prob and KL."""

from engine.distributions import constraints, kl, utils  # noqa: F401
from engine.distributions.bernoulli import Bernoulli
from engine.distributions.beta import Beta
from engine.distributions.categorical import Categorical
from engine.distributions.dirichlet import Dirichlet
from engine.distributions.distribution import Distribution
from engine.distributions.exp_family import ExponentialFamily
from engine.distributions.exponential import Exponential
from engine.distributions.gamma import Gamma
from engine.distributions.independent import Independent
from engine.distributions.kl import kl_divergence, register_kl
from engine.distributions.laplace import Laplace
from engine.distributions.multivariate_normal import MultivariateNormal
from engine.distributions.normal import Normal
from engine.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from engine.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential", "ExponentialFamily",
           "Gamma", "Independent", "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Uniform", "kl_divergence", "register_kl"]
