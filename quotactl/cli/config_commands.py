"""placeholder replaced by the config work"""
import typer
def register(app: typer.Typer) -> None:
    return None
