"""FLOATER (Liu, Yu, Dhillon and Hsieh 2020, "Learning to Encode Position for Transformer with Continuous
Dynamical Model"): positions are samples of a trajectory p(t) of a learned dynamical system,

    p(t) = p(0) + integral_0^t h(tau, p(tau)) dtau,      PE(position) = p(position)

solved here by fixed-step Runge-Kutta 4 (`steps_per_position` steps per unit of position). The paper notes that the
sinusoidal table solves a linear system of this kind; we use that to start from it:

    h(t, p) = A p + g(t, p),   A: the block rotation of each (sin, cos) pair, d/dt (s, c) = w_i (c, -s)
                                g: a learned MLP, its output layer initialised at zero
    p(0)    = PE_sin(0) = (0, 1, 0, 1, ...)

and training learns the correction g. Any length can be represented.

`integrate` chooses what the solver integrates. `deviation` (default): q(t) = p(t) - PE_sin(t), which obeys
dq/dt = A q + g(t, PE_sin(t) + q) with q(0) = p(0) - PE_sin(0) (the same ODE, as d/dt PE_sin = A PE_sin exactly);
at initialisation g = 0 and q = 0, so the table *is* the sinusoidal table at any `steps_per_position`, and the
solver's error only concerns the learned correction. `state`: p(t) itself (the original form), which starts
within the solver's error of the sinusoidal table only: up to 0.6 at p < 100 with one step per position.

Differences from the paper: the trajectory enters once, at the embeddings (the paper injects one per block, with
shared dynamics), and the solver is fixed-step.
"""
from __future__ import annotations

import math
from typing import Optional

import torch
from torch import Tensor, nn

from translate.encodings.base import AbsoluteEncoding


class Dynamics(nn.Module):
    """h(t, p) = A p + g(t, p) for a state p of shape (d,), d even; (s, c) pairs interleaved like `sinusoidal`."""

    def __init__(self, width: int, hidden: int, base: float) -> None:
        super().__init__()
        freqs = torch.exp(torch.arange(0, width, 2, dtype=torch.float32) * (-math.log(base) / width))
        self.register_buffer("freqs", freqs, persistent=False)  # (d/2,)
        self.g_in = nn.Linear(width + 1, hidden)
        self.g_out = nn.Linear(hidden, width)
        with torch.no_grad():
            self.g_in.weight[:, -1].zero_()  # time enters as the model learns it (t grows to the sentence length)
            self.g_out.weight.zero_()
            self.g_out.bias.zero_()

    def rotation(self, p: Tensor) -> Tensor:
        """A p, (d,)."""
        s, c = p[0::2], p[1::2]
        return torch.stack([self.freqs * c, -self.freqs * s], dim=-1).flatten()

    def correction(self, t: float, p: Tensor) -> Tensor:
        """g(t, p), (d,)."""
        return self.g_out(torch.tanh(self.g_in(torch.cat([p, p.new_full((1,), t)]))))

    def sinusoid(self, t: float) -> Tensor:
        """PE_sin(t), the solution of dp/dt = A p from PE_sin(0): (d,)."""
        angles = t * self.freqs
        return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten()

    def forward(self, t: float, p: Tensor) -> Tensor:
        """h(t, p) = A p + g(t, p)."""
        return self.rotation(p) + self.correction(t, p)

    def deviation(self, t: float, q: Tensor) -> Tensor:
        """dq/dt for q = p - PE_sin(t): A q + g(t, PE_sin(t) + q)."""
        return self.rotation(q) + self.correction(t, self.sinusoid(t) + q)


class Floater(AbsoluteEncoding):
    INTEGRATE = ("deviation", "state")

    def __init__(self, d_model: int, n_heads: int, hidden: int = 64, steps_per_position: int = 1,
                 base: float = 10000.0, integrate: str = "deviation", **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        if self.d_pe % 2:
            raise ValueError(f"floater needs an even table width, got {self.d_pe}")
        if not (isinstance(hidden, int) and hidden >= 1):
            raise ValueError(f"encoding.hidden={hidden} is not allowed: expected an integer >= 1")
        if not (isinstance(steps_per_position, int) and steps_per_position >= 1):
            raise ValueError(f"encoding.steps_per_position={steps_per_position} is not allowed: "
                             f"expected an integer >= 1")
        if integrate not in self.INTEGRATE:
            raise ValueError(f"encoding.integrate={integrate!r} is not allowed: expected one of "
                             f"{list(self.INTEGRATE)} (deviation: exact sinusoidal start; state: p itself)")
        self.steps_per_position, self.integrate = steps_per_position, integrate
        self.dynamics = Dynamics(self.d_pe, hidden, base)
        start = torch.zeros(self.d_pe)
        start[1::2] = 1.0  # PE_sin(0)
        self.start = nn.Parameter(start)
        self._solved: Optional[tuple[tuple, Tensor]] = None  # (key, trajectory), reused only outside autograd

    def rk4_step(self, t: float, p: Tensor, dt: float) -> Tensor:
        """One RK4 step of what `integrate` names: the deviation q or the state p."""
        h = self.dynamics.deviation if self.integrate == "deviation" else self.dynamics
        k1 = h(t, p)
        k2 = h(t + dt / 2, p + dt / 2 * k1)
        k3 = h(t + dt / 2, p + dt / 2 * k2)
        k4 = h(t + dt, p + dt * k3)
        return p + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def solve(self, n: int) -> Tensor:
        """The trajectory at t = 0 .. n-1: (n, d)."""
        dt = 1.0 / self.steps_per_position
        deviation = self.integrate == "deviation"
        p = self.start - self.dynamics.sinusoid(0.0) if deviation else self.start
        points = [p]
        for i in range(1, n):
            for s in range(self.steps_per_position):
                p = self.rk4_step(i - 1 + s * dt, p, dt)
            points.append(p)
        trajectory = torch.stack(points)  # (n, d)
        if deviation:
            trajectory = trajectory + torch.stack([self.dynamics.sinusoid(float(t)) for t in range(n)])
        return trajectory

    def trajectory(self, n: int) -> Tensor:
        """(>= n, d). Without autograd (decoding) a solved prefix is kept while the parameters stay unchanged, so
        step-by-step decoding does not re-solve the system at every step."""
        if torch.is_grad_enabled():
            return self.solve(n)
        key = (self.start.device, self.start.dtype, tuple(p._version for p in self.parameters()))
        if self._solved is None or self._solved[0] != key or self._solved[1].size(0) < n:
            self._solved = (key, self.solve(max(n, 64)))
        return self._solved[1]

    def compute_table(self, positions: Tensor) -> Tensor:
        if positions.is_floating_point():
            raise ValueError("floater samples its trajectory at integer positions, not continuous ones")
        n = int(positions.max()) + 1 if positions.numel() else 1
        return self.trajectory(n)[positions]  # (..., T, d)
