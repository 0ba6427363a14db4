"""Adam: a per-parameter step size from running averages of the gradient and its square."""

from microgpt.engine import Value


class Adam:
    """Adam with a learning rate that decays linearly to zero over total_steps, and stays there."""

    def __init__(
        self,
        params: list[Value],
        lr: float = 0.01,
        total_steps: int = 1000,
        beta1: float = 0.85,
        beta2: float = 0.99,
        eps: float = 1e-8,
    ):
        if total_steps < 1:
            raise ValueError(f"total_steps must be at least 1, not {total_steps}")
        self.params, self.lr, self.total_steps = params, lr, total_steps
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = [0.0] * len(params)  # running mean of each gradient
        self.v = [0.0] * len(params)  # running mean of each squared gradient
        self.t = 0  # updates done so far

    def step(self) -> None:
        """Move each parameter against its gradient, then zero the gradient."""
        lr_t = self.lr * max(0.0, 1 - self.t / self.total_steps)  # linear decay, never below zero
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        for i, p in enumerate(self.params):
            self.m[i] = b1 * self.m[i] + (1 - b1) * p.grad
            self.v[i] = b2 * self.v[i] + (1 - b2) * p.grad**2
            # undo the pull towards the zeros m and v started from
            m_hat = self.m[i] / (1 - b1**self.t)
            v_hat = self.v[i] / (1 - b2**self.t)
            p.data -= lr_t * m_hat / (v_hat**0.5 + self.eps)
            p.grad = 0
