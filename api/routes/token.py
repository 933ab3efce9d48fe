"""The operator token, checked when it is typed: the console asks here before any write, so a
pasted wrong token is found out at once, not at the first play entered."""
from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from .. import schemas as s
from ..deps import OperatorDep

router = APIRouter(prefix="/api", tags=["operator"])


class TokenOut(BaseModel):
    operator: str = Field(description="The token's name, as corrections record who made them.")


@router.get("/token", response_model=TokenOut, summary="Check an operator token",
            responses=s.errors(401, 429),
            description="200 with the token's name for a token that may write; 401 for a missing or unknown "
                        "one (and 429 after many wrong ones, as for every write). Nothing is written.")
def check_token(who: OperatorDep) -> TokenOut:
    return TokenOut(operator=who)
