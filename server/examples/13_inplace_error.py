# title: In-place change of a saved tensor breaks backward
import torch

a = torch.tensor([0.5, -0.5, 1.0], requires_grad=True)
s = a.sigmoid()      # SigmoidBackward0 saves its result
r = s * 3
s.mul_(2)            # bumps s._version from 0 to 1
r.sum().backward()   # the saved result is stale: error
